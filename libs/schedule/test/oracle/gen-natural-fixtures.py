"""
Regenerates test/fixtures/natural-oracle.json: English schedules and what they must give, with the
fire times computed independently by python-dateutil's rrule (and the standard zoneinfo for the
RFC 5545 wall-time policy: a time in a DST gap is shifted forward by the gap, a repeated time is
its first occurrence). Not a test; needs Python >= 3.9 with python-dateutil:

    python3 libs/schedule/test/oracle/gen-natural-fixtures.py

Every phrase is written here together with its meaning as rrule arguments, so the engine's parser
is never consulted. Groups (natural-oracle.spec.ts reports agreement per group, docs/schedules.md
records it):
- `last-weekday`: `the last weekday of (every) month at …` in every phrase form, first/nth/last,
  workdays and weekend days, several times, month filters and month steps;
- `day-first`: dates written day first (`25 december`, `on 3 march at 9am`) in every phrase form
  where month first works, abbreviated and full month names, leap days; impossible dates are
  errors at the day (as month first);
- `contradiction`: a weekday set narrowed by days it does not contain (`every weekday on
  saturday`): `never_fires` at the later clause, suggesting the text without it;
- `unit-without-number`: `in minutes`, `every minutes at 9am`: `expected_number` at the unit;
- `dangling-conjunction`: `every monday and`, `and every monday`: `incomplete` at the conjunction,
  suggesting the text without it.
Cases of one phrase and zone are in ascending `after` order (the spec replays them through one
ScheduleValidationCache, as the preview endpoint would).
"""

import json
import os
import random
from datetime import datetime, timedelta, timezone
from zoneinfo import ZoneInfo

from dateutil.rrule import FR, MO, MONTHLY, SA, SU, TH, TU, WE, YEARLY, rrule

import dateutil

rnd = random.Random(20261122)

ZONES = ['UTC', 'America/New_York', 'Europe/Berlin', 'Australia/Sydney', 'Asia/Kolkata', 'Australia/Lord_Howe']
AFTERS = [
    datetime(2026, 1, 15, 12, 0, tzinfo=timezone.utc),
    datetime(2026, 3, 8, 6, 0, tzinfo=timezone.utc),
    datetime(2026, 10, 30, 23, 0, tzinfo=timezone.utc),
    datetime(2026, 11, 30, 16, 45, 7, tzinfo=timezone.utc),
    datetime(2027, 2, 27, 12, 34, 56, tzinfo=timezone.utc),
    datetime(2028, 2, 28, 23, 59, 59, tzinfo=timezone.utc),
]
N = 6
WEEKDAYS = (MO, TU, WE, TH, FR)
WEEKEND = (SA, SU)
MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october',
          'november', 'december']
MONTH_ABBR = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec']
DAYS_IN = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
DAY_NAMES = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday']

# times: phrase -> seconds after midnight (several for `and`)
TIMES = {
    '9am': [9 * 3600],
    '17:00': [17 * 3600],
    '5:30 pm': [17 * 3600 + 1800],
    'noon': [12 * 3600],
    'midnight': [0],
    '9:15 and 17:45': [9 * 3600 + 900, 17 * 3600 + 2700],
    '2:30': [2 * 3600 + 1800],  # inside spring-forward gaps
    '1:30': [1 * 3600 + 1800],  # inside fall-back overlaps
    '8am and 8pm': [8 * 3600, 20 * 3600],
}


def ms(dt):
    return int(dt.timestamp() * 1000)


def to_instant(wall, zone):
    """RFC 5545 policy: fold=0 gives the offset before a transition (gap: shifted forward; repeat: first)."""
    return wall.replace(tzinfo=ZoneInfo(zone), fold=0).astimezone(timezone.utc)


def fires(zone, after, times, **rule):
    """First N instants strictly after `after`: one rrule per time of day, united (no BYSETPOS grid)."""
    local = after.astimezone(ZoneInfo(zone)).replace(tzinfo=None)
    dtstart = local.replace(hour=0, minute=0, second=0, microsecond=0)
    if rule.get('freq') == MONTHLY and rule.get('interval', 1) == 1:
        dtstart = dtstart.replace(day=1)
    out = set()
    for sec in times:
        r = rrule(dtstart=dtstart, byhour=sec // 3600, byminute=sec // 60 % 60, bysecond=sec % 60,
                  until=dtstart + timedelta(days=366 * 40), **rule)
        got = 0
        for wall in r:
            inst = to_instant(wall, zone)
            if inst > after:
                out.add(ms(inst))
                got += 1
                if got >= N + 2:
                    break
    return sorted(out)[:N]


def byte_at(text, sub, start=0):
    i = text.index(sub, start)
    return len(text[:i].encode('utf-8'))


cases = []


def ok(group, expr, zone, after, times, **rule):
    cases.append({'group': group, 'expr': expr, 'zone': zone, 'after': ms(after), 'n': N,
                  'fires': fires(zone, after, times, **rule)})


def error(group, expr, kind, at, zone='UTC', after=AFTERS[0], suggestion_compiles=False):
    cases.append({'group': group, 'expr': expr, 'zone': zone, 'after': ms(after), 'n': N,
                  'error': {'kind': kind, 'at': at, 'suggestionCompiles': suggestion_compiles}})


def sample(seq, k):
    return rnd.sample(seq, min(k, len(seq)))


# ---------------------------------------------------------------- last-weekday
LAST_WEEKDAY_FORMS = [
    ('the last weekday of every month at {T}', WEEKDAYS, [-1]),
    ('the last weekday of the month at {T}', WEEKDAYS, [-1]),
    ('last weekday of each month at {T}', WEEKDAYS, [-1]),
    ('every last weekday of the month at {T}', WEEKDAYS, [-1]),
    ('on the last weekday of every month at {T}', WEEKDAYS, [-1]),
    ('at {T} on the last weekday of every month', WEEKDAYS, [-1]),
    ('The Last Weekday Of Every Month At {T}', WEEKDAYS, [-1]),
    ('the last workday of the month at {T}', WEEKDAYS, [-1]),
    ('the first weekday of every month at {T}', WEEKDAYS, [1]),
    ('the 2nd weekday of the month at {T}', WEEKDAYS, [2]),
    ('the first and last weekday of the month at {T}', WEEKDAYS, [1, -1]),
    ('the last weekend day of every month at {T}', WEEKEND, [-1]),
]
for form, days, setpos in LAST_WEEKDAY_FORMS:
    for t in sample(list(TIMES), 4):
        expr = form.replace('{T}', t)
        for zone in sample(ZONES, 3):
            for after in sorted(sample(AFTERS, 3)):
                ok('last-weekday', expr, zone, after, TIMES[t], freq=MONTHLY, byweekday=days, bysetpos=setpos)
for zone in ZONES:
    after = rnd.choice(AFTERS)
    ok('last-weekday', 'the last weekday of every month', zone, after, [0], freq=MONTHLY, byweekday=WEEKDAYS,
       bysetpos=[-1])
    ok('last-weekday', 'the last weekday of march and september at 9am', zone, after, [9 * 3600], freq=MONTHLY,
       bymonth=[3, 9], byweekday=WEEKDAYS, bysetpos=[-1])
    ok('last-weekday', 'every 15 minutes between 9am and 10am on the last weekday of the month', zone, after,
       [9 * 3600 + 900 * k for k in range(4)], freq=MONTHLY, byweekday=WEEKDAYS, bysetpos=[-1])
# `every 2 months`: counted from the reference's month (dtstart in fires() is the reference's day)
for zone in sample(ZONES, 3):
    for after in AFTERS[:3]:
        ok('last-weekday', 'every 2 months on the last weekday at 9am', zone, after, [9 * 3600], freq=MONTHLY,
           interval=2, byweekday=WEEKDAYS, bysetpos=[-1])

# ---------------------------------------------------------------- day-first
DAY_FIRST_FORMS = [
    ('{D} {M}', False),
    ('{D} {M} at {T}', True),
    ('on {D} {M}', False),
    ('on {D} {M} at {T}', True),
    ('every {D} {M}', False),
    ('every {D} {M} at {T}', True),
    ('every year on {D} {M} at {T}', True),
    ('at {T} on {D} {M}', True),
    ('{D}th {M} at {T}', True),
    ('every {D} {M} at {T} until 2031-12-31', True),
]
for form, has_time in DAY_FIRST_FORMS:
    for _ in range(5):
        m = rnd.randrange(12)
        d = rnd.randint(1, DAYS_IN[m])
        if form.startswith('{D}th') and d in (1, 2, 3, 21, 22, 23, 31):
            d = 4
        month_word = rnd.choice([MONTHS[m], MONTH_ABBR[m], MONTHS[m].capitalize()])
        t = rnd.choice(list(TIMES)) if has_time else None
        expr = form.replace('{D}', str(d)).replace('{M}', month_word).replace('{T}', t or '')
        extra = {}
        if 'until' in form:
            extra['until'] = datetime(2031, 12, 31, 23, 59, 59)
        for zone in sample(ZONES, 2):
            for after in sorted(sample(AFTERS, 2)):
                rule = dict(freq=YEARLY, bymonth=m + 1, bymonthday=d, **extra)
                if 'until' in rule:
                    local_until = rule.pop('until')
                    times = TIMES[t] if t else [0]
                    got = [x for x in fires(zone, after, times, **rule)
                           if x <= ms(to_instant(local_until, zone))]
                    cases.append({'group': 'day-first', 'expr': expr, 'zone': zone, 'after': ms(after), 'n': N,
                                  'fires': got})
                else:
                    ok('day-first', expr, zone, after, TIMES[t] if t else [0], **rule)
for zone in ZONES:
    for after in AFTERS[4:]:
        ok('day-first', 'on 29 february at 9am', zone, after, [9 * 3600], freq=YEARLY, bymonth=2, bymonthday=29)
        ok('day-first', 'every 29 feb', zone, after, [0], freq=YEARLY, bymonth=2, bymonthday=29)
# a day the month never has: an error at the day, as `february 30` is
for d, m in [(30, 'february'), (31, 'april'), (31, 'jun'), (32, 'march'), (31, 'sept'), (30, 'feb')]:
    for form in ['{D} {M}', 'on {D} {M} at 9am', 'every {D} {M}', 'every year on {D} {M} at noon']:
        expr = form.replace('{D}', str(d)).replace('{M}', m)
        error('day-first', expr, 'out_of_range', byte_at(expr, str(d)))

# ---------------------------------------------------------------- contradiction
WEEKDAY_SETS = {'weekday': [0, 1, 2, 3, 4], 'weekend': [5, 6]}
for _ in range(40):
    first_kind = rnd.choice(['weekday', 'weekend', 'day'])
    t = rnd.choice(['9am', '17:00', 'noon'])
    if first_kind == 'weekday':
        first = rnd.choice(['every weekday', 'weekdays', 'on weekdays', 'every workday'])
        other = DAY_NAMES[rnd.randint(5, 6)]
        second = rnd.choice([f'on {other}', f'on {other}s', f'every {other}', 'on weekends'])
    elif first_kind == 'weekend':
        first = rnd.choice(['every weekend', 'weekends', 'on weekends'])
        other = DAY_NAMES[rnd.randint(0, 4)]
        second = rnd.choice([f'on {other}', f'on {other}s', f'every {other}', 'on weekdays'])
    else:
        a, b = rnd.sample(range(7), 2)
        first = rnd.choice([f'every {DAY_NAMES[a]}', f'{DAY_NAMES[a]}s', f'on {DAY_NAMES[a]}'])
        second = f'on {DAY_NAMES[b]}'
    shape = rnd.choice(['{1} {2} at {T}', '{1} at {T} {2}', '{1} {2}'])
    expr = shape.replace('{1}', first).replace('{2}', second).replace('{T}', t)
    error('contradiction', expr, 'never_fires', byte_at(expr, second, len(first)), rnd.choice(ZONES),
          suggestion_compiles=True)

# ---------------------------------------------------------------- unit-without-number
UNITS = ['seconds', 'minutes', 'hours', 'days', 'weeks', 'months', 'years', 'mins', 'hrs']
for u in UNITS:
    for form in ['in {U}', 'every {U}', 'every {U} at 9am', 'every {U} on weekdays', 'every {U} starting 2027-01-01']:
        expr = form.replace('{U}', u)
        error('unit-without-number', expr, 'expected_number', byte_at(expr, u), rnd.choice(ZONES),
              suggestion_compiles=False)
for u in ['minute', 'hour', 'day', 'week']:
    expr = f'in {u}'
    error('unit-without-number', expr, 'expected_number', byte_at(expr, u))

# ---------------------------------------------------------------- dangling-conjunction
BASES = ['every monday', 'every monday and friday', 'at 9am', 'every day at 9am', 'every weekday at 5:30 pm',
         'on the 1st of every month at 8am', 'every 5 minutes', 'every 25 december at 8am',
         'the last weekday of every month at 9am', 'every 2 weeks on friday at 18:00']
for base in BASES:
    for conj in [' and', ',', ' &', ' then']:
        expr = base + conj
        error('dangling-conjunction', expr, 'incomplete', len(base.encode('utf-8')) + (1 if conj[0] == ' ' else 0),
              rnd.choice(ZONES), suggestion_compiles=True)
    expr = 'and ' + base
    error('dangling-conjunction', expr, 'incomplete', 0, rnd.choice(ZONES), suggestion_compiles=True)
    expr = base + ' and and'
    error('dangling-conjunction', expr, 'incomplete', len(base.encode('utf-8')) + 1, rnd.choice(ZONES),
          suggestion_compiles=False)

out = os.path.join(os.path.dirname(__file__), '..', 'fixtures', 'natural-oracle.json')
with open(out, 'w') as f:
    json.dump({'generatedBy': f'python-dateutil {dateutil.__version__} rrule + zoneinfo', 'cases': cases}, f,
              separators=(',', ':'), ensure_ascii=False)
groups = {}
for c in cases:
    groups[c['group']] = groups.get(c['group'], 0) + 1
print(f'wrote {len(cases)} cases: ' + ', '.join(f'{g} {k}' for g, k in groups.items()))
