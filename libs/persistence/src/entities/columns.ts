import {
  Column,
  type ColumnOptions,
  type ColumnType,
  JoinColumn,
  ManyToOne,
  type ObjectType,
  PrimaryColumn,
} from 'typeorm';

// Column decorators for the conventions every table follows: snake_case column names given
// explicitly, `pk_<table>` primary keys, `fk_<table>_<relation>` foreign keys that cascade.

/** A column's options besides its name and type (`nullable`, `default`, `select`, `array`, `precision`…). */
export type ColumnExtras = Omit<ColumnOptions, 'name' | 'type'>;

function typedColumn(type: ColumnType) {
  return (name: string, extras: ColumnExtras = {}): PropertyDecorator => Column({ name, type, ...extras });
}

export const TextColumn = typedColumn('text');
export const IntegerColumn = typedColumn('integer');
export const BooleanColumn = typedColumn('boolean');
export const TimestampColumn = typedColumn('timestamptz');
export const JsonColumn = typedColumn('jsonb');

/** One column of the primary key `pk_<table>` (each column of a composite key carries it). */
export function KeyColumn(
  table: string,
  name: string,
  type: ColumnType = 'text',
  extras: Omit<ColumnExtras, 'nullable'> = {},
): PropertyDecorator {
  return PrimaryColumn({ name, type, primaryKeyConstraintName: `pk_${table}`, ...extras });
}

/** `id`, the text primary key of a table whose rows carry prefixed ids (`job_<ulid>`). */
export function IdColumn(table: string): PropertyDecorator {
  return KeyColumn(table, 'id');
}

/**
 * The row `<relation>_id` points to, through the foreign key `fk_<table>_<relation>`; deleting it
 * deletes this row (`ON DELETE CASCADE`).
 */
export function BelongsTo<T>(table: string, relation: string, target: () => ObjectType<T>): PropertyDecorator {
  const manyToOne = ManyToOne(target, { onDelete: 'CASCADE' });
  const joinColumn = JoinColumn({ name: `${relation}_id`, foreignKeyConstraintName: `fk_${table}_${relation}` });
  return (prototype, property) => {
    joinColumn(prototype, property);
    manyToOne(prototype, property);
  };
}
