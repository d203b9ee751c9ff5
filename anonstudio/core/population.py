"""The population a table is a sample of, when the user names none: the one figure the risk analysis
(:mod:`anonstudio.core.metrics`) and the k-map estimator (:mod:`anonstudio.core.privacy`) share, kept apart from
both so that neither imports the other for it."""

#: ARX's default population model: the United States, 317,238,626 people
US_POPULATION = 317_238_626

#: a short list of countries a table may be a sample of (the workbench's Risk pane offers them; a number or a
#: sampling fraction can always be given instead). Mid-2023 totals, approximately (World Bank, World Development
#: Indicators, SP.POP.TOTL), rounded to thousands: a risk estimate needs the order of magnitude, not the census
#: count. The USA's entry is ARX's figure, the default everywhere.
COUNTRY_POPULATIONS: dict[str, int] = {
    "USA (ARX's default)": US_POPULATION,
    "Brazil": 216_422_000,
    "Canada": 40_098_000,
    "France": 68_170_000,
    "Germany": 83_280_000,
    "India": 1_428_628_000,
    "Italy": 58_761_000,
    "Netherlands": 17_880_000,
    "Portugal": 10_525_000,
    "Spain": 48_373_000,
    "United Kingdom": 68_350_000,
}
