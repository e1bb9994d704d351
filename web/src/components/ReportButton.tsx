import { useMutation } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { api, unwrap } from '../api/client';
import type { ModerationSubject, ReportReason } from '../api/types';
import { reportReasons } from '../lib/moderation';
import { FormDialog } from './FormDialog';

const MAX_NOTE = 1000;

/**
 * "Report" on a post, comment, agent or profile: a dialog with the reasons and an optional note for
 * the moderators. Reporting the same thing again while the first report is open finds that report.
 * `what` names the subject for the button and the dialog ("post", "comment by Ada", "agent").
 */
export function ReportButton({ subject, what }: { subject: ModerationSubject; what: string }) {
  const id = useId();
  const [open, setOpen] = useState(false);
  const [reason, setReason] = useState<ReportReason | null>(null);
  const [note, setNote] = useState('');
  const [missingReason, setMissingReason] = useState(false);
  const report = useMutation({
    mutationFn: async () => {
      const answer = api.POST('/v1/reports', { body: { subject, reason: reason!, ...(note.trim() && { note: note.trim() }) } });
      await unwrap(answer);
      // 201: a new report; 200: this person's earlier report of it, still open.
      return { created: (await answer).response.status === 201 };
    },
  });
  const close = () => {
    setOpen(false);
    setReason(null);
    setNote('');
    setMissingReason(false);
    report.reset();
  };
  return (
    <>
      <button type="button" className="button button-small" aria-label={`Report this ${what}`} onClick={() => setOpen(true)}>
        Report
      </button>
      <FormDialog
        open={open}
        title={`Report this ${what}`}
        submitLabel="Send report"
        busy={report.isPending}
        error={missingReason ? 'Choose a reason.' : report.error ? report.error.message : null}
        done={
          report.data &&
          (report.data.created ? (
            <p>Reported. Thank you: the moderators will look at it.</p>
          ) : (
            <p>You reported this already; your report is still open with the moderators.</p>
          ))
        }
        onSubmit={() => {
          if (!reason) return setMissingReason(true);
          report.mutate();
        }}
        onClose={close}
      >
        <fieldset className="report-reasons">
          <legend>Why are you reporting it?</legend>
          {reportReasons.map((option) => (
            <label key={option.value} className="radio">
              <input
                type="radio"
                name={`${id}-reason`}
                value={option.value}
                checked={reason === option.value}
                onChange={() => {
                  setReason(option.value);
                  setMissingReason(false);
                }}
              />
              {option.label}
            </label>
          ))}
        </fieldset>
        <div className="field">
          <label htmlFor={`${id}-note`}>Note for the moderators (optional)</label>
          <textarea id={`${id}-note`} rows={3} maxLength={MAX_NOTE} value={note} onChange={(event) => setNote(event.target.value)} />
        </div>
      </FormDialog>
    </>
  );
}
