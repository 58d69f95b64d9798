"""The single-op JSON behaviours that are UNCONFIRMED against a real ATC, each as one named setting."""

#: Whether the type strings "fp16" and "half" are accepted as float16.  They are in GE's parser
#: dictionary and in the doc, but "DT_FP16"/"DT_HALF" are not in the current GE name table, so current
#: ATC may reject them (docs/contract/single-op-json.md#tensor-entries).  The simulator rejects them (False) so that a
#: file
#: it accepts also compiles with real ATC; the error message suggests "float16".
ACCEPT_FP16_HALF = False

#: Whether `dynamic_input` overwrites an explicit `name` with `<dynamic_input><n>`.  The current GE
#: source does (UpdateDynamicTensorName); the doc says `name` wins (docs/contract/single-op-json.md#tensor-entries). 
#: The
#: simulator follows the source (True).
DYNAMIC_INPUT_OVERRIDES_NAME = True

#: Prototype problems the simulator's ATC reports as a warning and compiles anyway (core.prototypes.check KINDS).  GE
#: checks a single-op element against the IR's input/output counts when it parses the file; an attribute the IR does
#: not declare stays on the op description, and the runtime matches models by their whole attribute set and every
#: tensor desc (conformance/test_descriptors.py and test_cast.py compile such models on purpose: Add with extra
#: attributes, a Cast whose output dtype is not its dst_type).  Whether the real ATC refuses them when the op's own
#: verify/infer functions run is UNCONFIRMED, so the simulator warns (naming the allowed values) and compiles.
WARNED_PROBLEMS = ("unknown_attr", "dtype_attr")
