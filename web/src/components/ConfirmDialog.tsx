import { useEffect, useRef, type ReactNode } from 'react';

/**
 * A modal question before something that cannot be undone. Open while `subject` (what it asks
 * about) is set; a new object opens it again even before the last close has been reported. Escape
 * and Cancel call `onClose`. `error` shows the server's refusal inside the dialog.
 */
export function ConfirmDialog({
  subject,
  title,
  children,
  confirmLabel,
  busy,
  error,
  onConfirm,
  onClose,
}: {
  subject: object | null;
  title: string;
  children: ReactNode;
  confirmLabel: string;
  busy: boolean;
  error: string | null;
  onConfirm: () => void;
  onClose: () => void;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    if (subject && !dialog.current?.open) dialog.current?.showModal();
    if (!subject && dialog.current?.open) dialog.current.close();
  }, [subject]);
  return (
    // The browser reports an Escape's close a moment later; by then the dialog may have been opened again.
    <dialog ref={dialog} onCancel={onClose} onClose={() => !dialog.current?.open && onClose()} aria-labelledby="confirm-title">
      {subject && (
        <>
          <h2 id="confirm-title">{title}</h2>
          {children}
          {error && <p className="form-error">{error}</p>}
          <div className="dialog-actions">
            <button type="button" className="button" onClick={onClose}>
              Cancel
            </button>
            <button type="button" className="button button-danger" disabled={busy} onClick={onConfirm}>
              {confirmLabel}
            </button>
          </div>
        </>
      )}
    </dialog>
  );
}
