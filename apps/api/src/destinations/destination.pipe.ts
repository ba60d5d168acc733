import { DESTINATION_MAX_LENGTH, DESTINATION_PATTERN, DESTINATION_RULE, isDestination } from '@svc/delivery';
import { nameParamPipes } from '../common/name-param.pipe';

/** The `{destination}` path parameter: `400` (field `destination`) on `PUT`, `404` elsewhere. */
const destinationPipes = nameParamPipes({
  what: 'Destination',
  field: 'destination',
  rule: `must be ${DESTINATION_RULE}`,
  jsonSchema: { type: 'string', maxLength: DESTINATION_MAX_LENGTH, pattern: DESTINATION_PATTERN.source },
  isValid: isDestination,
});

export const DestinationToWritePipe = destinationPipes.toWrite;
export const DestinationToFindPipe = destinationPipes.toFind;
