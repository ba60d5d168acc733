export * from './ids';
export * from './durations';
export * from './cursors';
export * from './errors';
export * from './config';
