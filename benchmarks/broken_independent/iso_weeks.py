"""Independent corpus: the ISO week number of a date given as (year, month, day). A strategy
declares real dates; the declared ones lie in the middle of their years, where the common formula
is right."""

import datetime

import perflab

bench = perflab.Benchmark("iso_weeks", description="ISO 8601 week numbers")


@bench.case
def DATES():
    return [(2024, 3, 14), (2023, 7, 1), (2021, 10, 31), (2026, 5, 20)]


@bench.strategy
def dates(st):
    day = st.dates(datetime.date(1990, 1, 1), datetime.date(2060, 12, 31))
    return st.lists(day.map(lambda d: (d.year, d.month, d.day)), min_size=1, max_size=8)


@bench.contender(reference=True)
def isocalendar(days):
    """datetime.date.isocalendar()"""
    return [datetime.date(*day).isocalendar()[1] for day in days]


@bench.contender
def ordinal_formula(days):
    """(day of year - weekday + 10) // 7, without its corrections: week 0 and week 53 come out of
    it in early January and late December"""
    weeks = []
    for year, month, day in days:
        date = datetime.date(year, month, day)
        weeks.append((date.timetuple().tm_yday - date.isoweekday() + 10) // 7)
    return weeks


@bench.contender
def strftime_v(days):
    """control: strftime("%V")"""
    return [int(datetime.date(*day).strftime("%V")) for day in days]


@bench.contender
def thursday_rule(days):
    """control: the week's Thursday decides the year; its day of year gives the week"""
    weeks = []
    for day in days:
        date = datetime.date(*day)
        thursday = date + datetime.timedelta(days=3 - date.weekday())
        weeks.append((thursday.timetuple().tm_yday - 1) // 7 + 1)
    return weeks
