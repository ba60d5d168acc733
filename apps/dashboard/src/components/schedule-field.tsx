import { useEffect, useRef, useState } from 'preact/hooks';
import { api, type PreviewResponse, type ScheduleError, type ValidateResponse } from '../api';
import { byteRangeToStringRange, markSegments } from '../byte-range';
import { formatTime, viewerZone } from '../format';

const DEBOUNCE_MS = 250;

/**
 * The schedule expression with live validation (`POST /schedules/validate`) and preview
 * (`POST /schedules/preview`): errors underline the exact characters the API's UTF-8 byte
 * positions point at, suggestions replace them on click, and the next fire times are shown in
 * the job's zone and the viewer's.
 */
export function ScheduleField({
  expr,
  kind,
  timezone,
  onExpr,
  serverError,
}: {
  expr: string;
  kind: string;
  timezone: string;
  onExpr: (value: string) => void;
  serverError?: string;
}) {
  const [validation, setValidation] = useState<ValidateResponse | null>(null);
  const [preview, setPreview] = useState<PreviewResponse | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const input = useRef<HTMLInputElement>(null);
  const sequence = useRef(0);

  useEffect(() => {
    const mine = ++sequence.current;
    if (!expr.trim()) {
      setValidation(null);
      setPreview(null);
      return;
    }
    const timer = setTimeout(async () => {
      try {
        const body = { expr, kind, timezone: timezone || 'UTC' };
        const result = await api<ValidateResponse>('POST', '/api/v1/schedules/validate', body);
        if (mine !== sequence.current) {
          return;
        }
        setValidation(result);
        setFailure(null);
        setPreview(
          result.valid ? await api<PreviewResponse>('POST', '/api/v1/schedules/preview', { ...body, count: 5 }) : null,
        );
      } catch (err) {
        if (mine === sequence.current) {
          setFailure((err as Error).message);
          setPreview(null);
        }
      }
    }, DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [expr, kind, timezone]);

  const errors: ScheduleError[] = validation && !validation.valid ? validation.errors : [];
  const ranges = errors.map((e) => byteRangeToStringRange(expr, e.position, e.length));
  const segments = markSegments(expr, ranges);

  function applySuggestion(index: number) {
    const { start, end } = ranges[index];
    const next = expr.slice(0, start) + errors[index].suggestion! + expr.slice(end);
    onExpr(next);
    input.current?.focus();
  }

  const invalid = errors.length > 0 || Boolean(serverError);
  return (
    <div class="field schedule-field">
      <label for="schedule-expr">Schedule</label>
      <input
        id="schedule-expr"
        ref={input}
        value={expr}
        required
        spellcheck={false}
        autoComplete="off"
        aria-invalid={invalid}
        aria-describedby="schedule-help schedule-status"
        placeholder="every weekday at 9am"
        onInput={(e) => onExpr((e.target as HTMLInputElement).value)}
      />
      <p id="schedule-help" class="hint">
        Plain English (<code>every 15 minutes</code>, <code>every monday at 9am</code>), Quartz cron (
        <code>0 0 12 ? * MON-FRI</code>) or an RRULE.
      </p>
      {errors.length > 0 && (
        <p class="expr-echo" aria-hidden="true" data-testid="schedule-echo">
          {segments.map((s, i) =>
            s.marked ? (
              <mark class="schedule-error" key={i}>
                {s.text}
              </mark>
            ) : (
              <span key={i}>{s.text}</span>
            ),
          )}
        </p>
      )}
      <div id="schedule-status" aria-live="polite">
        {errors.length > 0 && (
          <ul class="schedule-errors">
            {errors.map((error, i) => (
              <li key={i}>
                {error.message}
                {error.suggestion !== null && ranges[i].end > ranges[i].start && (
                  <>
                    {' '}
                    <button type="button" class="suggestion" onClick={() => applySuggestion(i)}>
                      Use “{error.suggestion}”
                    </button>
                  </>
                )}
              </li>
            ))}
          </ul>
        )}
        {serverError && <p class="error">{serverError}</p>}
        {failure && <p class="error">{failure}</p>}
        {validation?.valid && (
          <p class="ok" data-testid="schedule-description">
            {validation.description} <span class="muted">({validation.kind_detected})</span>
          </p>
        )}
      </div>
      {preview && <NextFireTimes next={preview.next} timezone={preview.timezone} />}
    </div>
  );
}

/** An upcoming occurrence skipped on the job page. */
export interface SkippedOccurrence {
  at: string;
  note: string;
}

/**
 * Fire times in the job's zone and, when it differs, the viewer's. With `onToggleSkip` (the job
 * page) each row has a skip toggle, and a skipped occurrence shows its note.
 */
export function NextFireTimes({
  next,
  timezone,
  skipped = [],
  onToggleSkip,
  busy = false,
}: {
  next: string[];
  timezone: string;
  skipped?: SkippedOccurrence[];
  onToggleSkip?: (at: string, skip: SkippedOccurrence | null) => void;
  busy?: boolean;
}) {
  const both = timezone !== viewerZone;
  const skipOf = (t: string) => skipped.find((s) => Date.parse(s.at) === Date.parse(t)) ?? null;
  return (
    <div class="table-wrap" role="region" aria-label="Next fire times" tabIndex={0}>
      <table class="fire-times" data-testid="fire-times">
        <caption>Next fire times</caption>
        <thead>
          <tr>
            <th scope="col">In the job’s zone ({timezone})</th>
            {both && <th scope="col">Your time ({viewerZone})</th>}
            {onToggleSkip && <th scope="col">Skip</th>}
          </tr>
        </thead>
        <tbody>
          {next.map((t) => {
            const skip = skipOf(t);
            return (
              <tr key={t} class={skip ? 'skipped' : undefined} data-skipped={skip ? 'true' : undefined}>
                <td>
                  <time dateTime={t}>{formatTime(t, timezone)}</time>
                </td>
                {both && <td>{formatTime(t, viewerZone)}</td>}
                {onToggleSkip && (
                  <td>
                    {skip && <span class="muted">Skipped{skip.note ? `: ${skip.note}` : ''} </span>}
                    <button
                      type="button"
                      class="link"
                      disabled={busy}
                      aria-label={`${skip ? 'Undo the skip of' : 'Skip'} ${formatTime(t, timezone)}`}
                      onClick={() => onToggleSkip(t, skip)}
                    >
                      {skip ? 'Undo skip' : 'Skip…'}
                    </button>
                  </td>
                )}
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
