import { IsEmail, IsOptional, IsString, MaxLength } from 'class-validator';

/** `POST /api/v1/auth/dev-login` (decisions.md → Sessions; only with `auth.dev_login`). */
export class DevLoginDto {
  /** Who to sign in as; the user is created on first sight. */
  @IsEmail({}, { message: 'must be an email address of at most 254 characters' })
  @MaxLength(254)
  email: string;

  /** Display name for a new user; defaults to the email's local part. */
  @IsOptional()
  @IsString()
  @MaxLength(200)
  name?: string;
}
