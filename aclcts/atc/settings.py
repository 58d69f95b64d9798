"""The two single-op JSON behaviours that are UNCONFIRMED against a real ATC, each as one named setting."""

#: Whether the type strings "fp16" and "half" are accepted as float16.  They are in GE's parser
#: dictionary and in the doc, but "DT_FP16"/"DT_HALF" are not in the current GE name table, so current
#: ATC may reject them (atc-singleop.md §4, §13).  The simulator rejects them (False) so that a file
#: it accepts also compiles with real ATC; the error message suggests "float16".
ACCEPT_FP16_HALF = False

#: Whether `dynamic_input` overwrites an explicit `name` with `<dynamic_input><n>`.  The current GE
#: source does (UpdateDynamicTensorName); the doc says `name` wins (atc-singleop.md §4, §13).  The
#: simulator follows the source (True).
DYNAMIC_INPUT_OVERRIDES_NAME = True
