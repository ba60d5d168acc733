import { IdParamPipe } from '../common/id-param.pipe';

/** A malformed channel or rule id names nothing: `404 not_found` before the database. */
export const AlertChannelIdPipe = new IdParamPipe('channel', 'Alert channel');
export const AlertRuleIdPipe = new IdParamPipe('rule', 'Alert rule');
