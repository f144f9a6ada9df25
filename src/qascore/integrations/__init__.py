"""Scoring beyond one process: Ray Datasets (:mod:`qascore.integrations.ray`) and Spark DataFrames
(:mod:`qascore.integrations.spark`), both on the column contract of
:mod:`qascore.integrations.batches`. Each adapter imports its framework only when called.
Beside them, :mod:`qascore.integrations.ir_measures` makes the nugget and EXAM scores ir_measures
measures (importing it needs ``qascore[ir]``)."""
