// The keyboard shortcuts of the queue, in a modal dialog (the native <dialog>: focus moves into it,
// Escape closes it, and the focus returns to where it was).
import { useEffect, useRef } from 'react';

export const SHORTCUTS: [string, string][] = [
  ['j', 'Next alert'],
  ['k', 'Previous alert'],
  ['Enter or o', 'Open the alert under the cursor'],
  ['x', 'Select or unselect the alert under the cursor'],
  ['/', 'Go to the search box'],
  ['?', 'Show this help'],
  ['Escape', 'Close this help'],
];

export function ShortcutsHelp({ open, onClose }: { open: boolean; onClose(): void }) {
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const d = dialog.current;
    if (!d) return;
    if (open && !d.open) d.showModal();
    if (!open && d.open) d.close();
  }, [open]);
  return (
    <dialog ref={dialog} className="shortcuts" aria-labelledby="shortcuts-title" onClose={onClose} onCancel={onClose}>
      <h2 id="shortcuts-title">Keyboard shortcuts</h2>
      <dl className="shortcut-list">
        {SHORTCUTS.map(([key, what]) => (
          <div key={key}>
            <dt>
              <kbd>{key}</kbd>
            </dt>
            <dd>{what}</dd>
          </div>
        ))}
      </dl>
      <form method="dialog">
        <button type="submit" autoFocus>
          Close
        </button>
      </form>
    </dialog>
  );
}
