"""Machine annotators beside the crowd: calibrating their scores, choosing where their labels may be
accepted without a person under a stated error bound, and forecasting what that saves.

Pure core (no Django): ``calibrating`` (scores → probabilities, cross-fitted, and their ECE),
``routing`` (the threshold with a finite-sample guarantee, and the forecast), ``simulated`` (machine
annotators of known quality, for the bench), ``checking`` (the guarantee checked on labels collected
elsewhere, as ``replay_labels --machine-scores`` does).
"""
