import { useEffect, useId, useRef, type ReactNode } from 'react';

/**
 * A modal form: open while `open` is true. The browser puts the focus on its first field, keeps it
 * inside while open and gives it back to the control that opened it on close; Escape and Cancel call
 * `onClose`. `error` shows the server's refusal inside the dialog; `done` replaces the form with a
 * result and a Close button, which then has the focus.
 */
export function FormDialog({
  open,
  title,
  children,
  submitLabel,
  busy,
  error,
  done,
  danger = false,
  onSubmit,
  onClose,
}: {
  open: boolean;
  title: string;
  children: ReactNode;
  submitLabel: string;
  busy: boolean;
  error: string | null;
  done?: ReactNode;
  danger?: boolean;
  onSubmit: () => void;
  onClose: () => void;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const closeButton = useRef<HTMLButtonElement>(null);
  const titleId = useId();
  useEffect(() => {
    if (open && !dialog.current?.open) dialog.current?.showModal();
    if (!open && dialog.current?.open) dialog.current.close();
  }, [open]);
  useEffect(() => {
    if (done) closeButton.current?.focus();
  }, [done]);
  return (
    // The browser reports an Escape's close a moment later; by then the dialog may have been opened again.
    <dialog ref={dialog} className="form-dialog" onCancel={onClose} onClose={() => !dialog.current?.open && onClose()} aria-labelledby={titleId}>
      {open && (
        <>
          <h2 id={titleId}>{title}</h2>
          {done ? (
            <>
              <div role="status">{done}</div>
              <div className="dialog-actions">
                <button ref={closeButton} type="button" className="button" onClick={onClose}>
                  Close
                </button>
              </div>
            </>
          ) : (
            <form
              onSubmit={(event) => {
                event.preventDefault();
                onSubmit();
              }}
            >
              {children}
              {error && (
                <p className="form-error" role="alert">
                  {error}
                </p>
              )}
              <div className="dialog-actions">
                <button type="button" className="button" onClick={onClose}>
                  Cancel
                </button>
                <button type="submit" className={danger ? 'button button-danger' : 'button button-primary'} disabled={busy}>
                  {submitLabel}
                </button>
              </div>
            </form>
          )}
        </>
      )}
    </dialog>
  );
}

/** The reason a moderator gives, which the person concerned reads: required, 1-1000 characters as on the server. */
export function ReasonField({ value, onChange, label = 'Reason' }: { value: string; onChange: (value: string) => void; label?: string }) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <textarea id={id} rows={3} required maxLength={1000} value={value} onChange={(event) => onChange(event.target.value)} aria-describedby={`${id}-hint`} />
      <p className="field-hint" id={`${id}-hint`}>
        The person concerned is told this.
      </p>
    </div>
  );
}
