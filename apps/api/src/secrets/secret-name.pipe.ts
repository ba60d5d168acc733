import { nameParamPipes } from '../common/name-param.pipe';
import { SECRET_NAME_PATTERN } from './secret-limits';

/** The `{name}` path parameter of the secrets routes (`400` on `PUT`, `404` on `DELETE`). */
const secretNamePipes = nameParamPipes({
  what: 'Secret',
  field: 'name',
  rule: 'must match [A-Za-z_][A-Za-z0-9_]{0,63}: a letter or _, then up to 63 letters, digits or _',
  jsonSchema: { type: 'string', pattern: SECRET_NAME_PATTERN.source },
  isValid: (value) => SECRET_NAME_PATTERN.test(value),
});

export const SecretNameToWritePipe = secretNamePipes.toWrite;
export const SecretNameToFindPipe = secretNamePipes.toFind;
