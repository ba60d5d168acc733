export * from './durations';
export * from './cursors';
export * from './keyset-page';
export * from './batched-purge';
export * from './errors';
export * from './config';
