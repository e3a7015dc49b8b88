// The process ancestry of an alert as nested lists: its parents above, its own process marked, its
// children below, each process with its image, id, user, start time and command line. Read from
// GET /api/alerts/{id}/process_tree; why it is partial (truncated, or only the alert's event read) is said.
import { useEffect, useMemo, useState } from 'react';
import { api, errorText } from '../../api';
import { formatTime } from '../../format';
import type { ProcessNode, ProcessTree } from './types';

const baseName = (path: string | null): string => (path ? (path.split(/[\\/]/).pop() ?? path) : 'unknown image');

function ProcessItem({ node, children }: { node: ProcessNode; children: Map<string | null, ProcessNode[]> }) {
  const kids = children.get(node.key) ?? [];
  const label = `${baseName(node.image)}${node.process_id !== null ? `, process ${node.process_id}` : ''}${node.is_alert_process ? ", this alert's process" : ''}`;
  return (
    <li className={node.is_alert_process ? 'process alert-process' : 'process'} aria-label={label} aria-current={node.is_alert_process ? 'true' : undefined} data-key={node.key}>
      <div className="process-line">
        <strong className="process-image" title={node.image ?? undefined}>
          {baseName(node.image)}
        </strong>
        {node.process_id !== null && <span className="muted"> pid {node.process_id}</span>}
        {node.user && <span className="muted"> · {node.user}</span>}
        {node.event_time ? <span className="muted"> · started {formatTime(node.event_time)}</span> : <span className="muted"> · known from its child</span>}
        {node.is_alert_process && <span className="badge process-badge">this alert</span>}
      </div>
      {node.command_line && <code className="process-command">{node.command_line}</code>}
      {kids.length > 0 && (
        <ul className="process-tree" aria-label={`Started by ${baseName(node.image)}`}>
          {kids.map((kid) => (
            <ProcessItem key={kid.key} node={kid} children={children} />
          ))}
        </ul>
      )}
    </li>
  );
}

export function ProcessAncestry({ alertId }: { alertId: string }) {
  const [tree, setTree] = useState<ProcessTree | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    let cancelled = false;
    api
      .get<ProcessTree>(`/api/alerts/${encodeURIComponent(alertId)}/process_tree`)
      .then((t) => !cancelled && setTree(t))
      .catch((e: unknown) => !cancelled && setError(errorText(e)));
    return () => {
      cancelled = true;
    };
  }, [alertId]);

  const children = useMemo(() => {
    const out = new Map<string | null, ProcessNode[]>();
    for (const node of tree?.nodes ?? []) out.set(node.parent_key, [...(out.get(node.parent_key) ?? []), node]);
    return out;
  }, [tree]);

  if (error)
    return (
      <p className="error" role="alert">
        {error}
      </p>
    );
  if (!tree) return <p role="status">Loading the process tree…</p>;
  const roots = children.get(null) ?? [];
  return (
    <div className="process-ancestry">
      {tree.unavailable_reason && <p className="muted">{tree.unavailable_reason}</p>}
      {roots.length > 0 && (
        <ul className="process-tree process-root" aria-label="Process tree">
          {roots.map((node) => (
            <ProcessItem key={node.key} node={node} children={children} />
          ))}
        </ul>
      )}
      {tree.truncated && <p className="muted">The tree is cut short: the host had more processes or events in these two days than it shows.</p>}
      {tree.nodes.length > 0 && !tree.unavailable_reason && (
        <p className="muted">
          From the process starts of this host between {formatTime(tree.window.from)} and {formatTime(tree.window.to)}.
        </p>
      )}
    </div>
  );
}
