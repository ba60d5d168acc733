import { MONTH_NAMES, WEEKDAY_NAMES } from '../calendar-names';

/** Month and weekday names shared by the Quartz and cron grammars (upper case, Sunday first). */
export const FULL_MONTHS = MONTH_NAMES.map((name) => name.toUpperCase());
export const FULL_DAYS = WEEKDAY_NAMES.map((name) => name.toUpperCase());
export const MONTHS = FULL_MONTHS.map((name) => name.slice(0, 3));
export const DAYS = FULL_DAYS.map((name) => name.slice(0, 3));
