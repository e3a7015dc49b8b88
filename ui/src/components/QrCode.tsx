// A QR code drawn as SVG in the page (the API's data: URL image would be blocked by the
// Content-Security-Policy, which allows images from the service's own origin only).
import { create } from 'qrcode';

export function QrCode({ text, label }: { text: string; label: string }) {
  const { modules } = create(text, { errorCorrectionLevel: 'M' });
  const size = modules.size;
  let path = '';
  for (let y = 0; y < size; y++) for (let x = 0; x < size; x++) if (modules.get(x, y)) path += `M${x + 4} ${y + 4}h1v1h-1z`;
  return (
    <svg className="qr" viewBox={`0 0 ${size + 8} ${size + 8}`} role="img" aria-label={label} shapeRendering="crispEdges">
      <rect width={size + 8} height={size + 8} fill="#fff" />
      <path d={path} fill="#000" />
    </svg>
  );
}
