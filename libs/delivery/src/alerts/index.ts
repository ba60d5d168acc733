export * from './content';
export * from './verification';
export * from './alert-sender';
