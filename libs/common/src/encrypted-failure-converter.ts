import { DefaultFailureConverter } from '@temporalio/common';

/**
 * The failure converter of processes with the payload codec on (`temporal-data-converter.ts`
 * names this file as `failureConverterPath`; the SDK loads its `failureConverter` export): a
 * failure's message and stack trace move into its encoded attributes, a payload, so the codec
 * encrypts them too. Readers of any configuration decode such failures (the default converter
 * reads encoded attributes whether or not it writes them).
 */
export const failureConverter = new DefaultFailureConverter({ encodeCommonAttributes: true });
