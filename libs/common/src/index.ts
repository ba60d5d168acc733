export * from './durations';
export * from './cursors';
export * from './keyset-page';
export * from './batched-purge';
export * from './each-limited';
export * from './errors';
export * from './config';
