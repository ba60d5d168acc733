export * from './entities';
export * from './data-source';
