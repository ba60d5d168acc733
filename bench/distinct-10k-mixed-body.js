// autocannon `setupRequest`: 10 000 distinct expressions in turn, a third each 5-field cron,
// Quartz and natural language (see distinct-10k-body.js). Used by schedule-endpoints.ts.
'use strict';

module.exports = require('./distinct-10k-body.js').setupRequest(true);
