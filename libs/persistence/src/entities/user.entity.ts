import { Check, Column, CreateDateColumn, Entity, PrimaryColumn, Unique } from 'typeorm';

/** A person signing in through a session provider. Email is stored lowercased. */
@Entity({ name: 'users' })
@Unique('uq_users_email', ['email'])
@Check('ck_users_email_lowercase', `"email" = lower("email")`)
export class UserEntity {
  /** `usr_<ulid>` */
  @PrimaryColumn({ name: 'id', type: 'text', primaryKeyConstraintName: 'pk_users' })
  id: string;

  @Column({ name: 'email', type: 'text' })
  email: string;

  @Column({ name: 'name', type: 'text' })
  name: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
