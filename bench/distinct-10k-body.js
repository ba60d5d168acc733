// autocannon `setupRequest` (a file, because autocannon runs in a worker thread): each request
// previews one of 10 000 distinct expressions in turn, so no request is answered from the
// endpoints' schedule cache (it keeps an input from its second sighting on, among the last
// 4 000 inputs seen once: an input comes back only 10 000 requests later). Every expression is
// 5-field cron here; distinct-10k-mixed-body.js mixes cron, Quartz and natural language. Used by
// schedule-endpoints.ts.
'use strict';

const CRON_DAYS = ['*', '1-5', '0,6', '1', '2', '3', '4', '5', '6', '1,3,5'];
const QUARTZ_DAYS = ['*', 'MON-FRI', 'SAT,SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT', 'SUN'];
const NATURAL_DAYS = [
  'day',
  'weekday',
  'monday',
  'friday',
  'weekend',
  'tuesday and thursday',
  'sunday',
  'saturday',
  'wednesday',
  'month on the 1st',
];
const pad = (n) => String(n).padStart(2, '0');

/** The i-th of 10 000 distinct expressions (minute × hour × 7 day patterns per kind). */
function expression(i, mix) {
  const j = i % 10000;
  const minute = j % 60;
  const hour = Math.floor(j / 60) % 24;
  const days = Math.floor(j / 1440); // 0..6
  const kind = mix ? j % 3 : 0;
  if (kind === 0) {
    return `${minute} ${hour} * * ${CRON_DAYS[days]}`;
  }
  if (kind === 1) {
    return `0 ${minute} ${hour} ? * ${QUARTZ_DAYS[days]}`;
  }
  return `every ${NATURAL_DAYS[days]} at ${pad(hour)}:${pad(minute)}`;
}

/** An autocannon `setupRequest` previewing expression(0), expression(1), … in turn. */
function setupRequest(mix) {
  let i = 0;
  return (request) => {
    const expr = expression(i++, mix);
    return { ...request, body: JSON.stringify({ expr, timezone: 'Europe/Berlin', count: 10 }) };
  };
}

module.exports = setupRequest(false);
module.exports.expression = expression;
module.exports.setupRequest = setupRequest;
