import { Check, Entity, Unique } from 'typeorm';
import { IdColumn, TextColumn } from './columns';
import { CreatedEntity } from './timestamps';
/** A person signing in through a session provider. Email is stored lowercased. */
@Entity({ name: 'users' })
@Unique('uq_users_email', ['email'])
@Check('ck_users_email_lowercase', `"email" = lower("email")`)
export class UserEntity extends CreatedEntity {
  /** `usr_<ulid>` */
  @IdColumn('users')
  id: string;

  @TextColumn('email')
  email: string;

  @TextColumn('name')
  name: string;
}
