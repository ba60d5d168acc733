import { IsOptional, IsString, MaxLength } from 'class-validator';

/** A skip's note at most (characters). */
export const OCCURRENCE_SKIP_NOTE_MAX = 500;

/** `POST /api/v1/jobs/{id}/occurrences/{at}/skip`. */
export class SkipOccurrenceDto {
  /** Why the occurrence is skipped (`bank holiday`, `migration night`); recorded on its skipped run. */
  @IsOptional()
  @IsString()
  @MaxLength(OCCURRENCE_SKIP_NOTE_MAX)
  note?: string;
}
