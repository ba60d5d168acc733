/** The page a browser shows after following a confirmation link (everything from the link escaped). */
export function verificationPage(address: string): string {
  const safe = address.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );
  return [
    '<!doctype html><html lang="en"><meta charset="utf-8"><meta name="viewport" content="width=device-width">',
    '<title>Address confirmed</title>',
    '<body style="font-family:system-ui,sans-serif;max-width:36rem;margin:3rem auto;padding:0 1rem">',
    `<h1>Address confirmed</h1><p><strong>${safe}</strong> now receives the alerts of the rules that name this channel.</p>`,
    '</body></html>',
  ].join('\n');
}
