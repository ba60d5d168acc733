const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

function escape(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c]);
}

function page(title: string, body: string): string {
  return [
    '<!doctype html><html lang="en"><meta charset="utf-8"><meta name="viewport" content="width=device-width">',
    `<title>${escape(title)}</title>`,
    '<body style="font-family:system-ui,sans-serif;max-width:36rem;margin:3rem auto;padding:0 1rem">',
    `<h1>${escape(title)}</h1>${body}`,
    '</body></html>',
  ].join('\n');
}

/** The page a browser shows after following a confirmation link (everything from the link escaped). */
export function verificationPage(address: string): string {
  return page(
    'Address confirmed',
    `<p><strong>${escape(address)}</strong> now receives the alerts of the rules that name this channel.</p>`,
  );
}

/** The page a browser shows for a link that confirms nothing: what went wrong and what to do. */
export function verificationErrorPage(reason: string): string {
  return page(
    'This link confirms nothing',
    `<p>${escape(reason)}</p><p>Ask whoever manages the alerts for a new confirmation mail ` +
      '(<code>POST /api/v1/alert-channels/{id}/verify</code>, or Resend in the dashboard).</p>',
  );
}
