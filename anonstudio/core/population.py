"""The population a table is a sample of, when the user names none: the one figure the risk analysis
(:mod:`anonstudio.core.metrics`) and the k-map estimator (:mod:`anonstudio.core.privacy`) share, kept apart from
both so that neither imports the other for it."""

#: ARX's default population model: the United States, 317,238,626 people
US_POPULATION = 317_238_626
