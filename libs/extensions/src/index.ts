export * from './sink-kinds.module';
