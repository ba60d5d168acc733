// autocannon `setupRequest` (a file, because autocannon runs in a worker thread): each request
// previews a different 5-field cron expression, cycling through 1 440 of them (every minute of
// the day, weekdays), more than the endpoints' schedule cache holds, so every request compiles
// and samples afresh. Used by schedule-endpoints.ts for the cold rows.
'use strict';

let i = 0;

module.exports = (request) => {
  const minuteOfDay = i++ % 1440;
  const expr = `${minuteOfDay % 60} ${Math.floor(minuteOfDay / 60)} * * 1-5`;
  return { ...request, body: JSON.stringify({ expr, timezone: 'Europe/Berlin', count: 10 }) };
};
