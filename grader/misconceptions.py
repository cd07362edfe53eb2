"""The misconceptions the grader names, one stable id each (documented in docs/misconceptions.md).

A failed check carries the id it found (`Check.misconception`); attempts store it as a column;
Progress and the gradebook read it. The learner reads the sentence `feedback.hint` makes of it,
so rewording a sentence changes no decision. Ids are never renamed: stored rows keep them.

    >>> Found(SIGN_FLIPPED).misconception
    'sign_flipped'
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Misconception:
    """One id and what it means, in a line."""

    id: str
    means: str


@dataclass(frozen=True)
class Remedy:
    """A change the feedback proposes, made only once it was checked: applied to the answer
    (tensor maths on the returned tensor, in the grading process) or, where the answer's code
    has to change, rewritten and run in the sandbox, it gives autograd's answer. `code` is
    what the learner may write: a line that follows their code and reworks their answer, or,
    when `whole`, their whole code rewritten."""

    code: str
    whole: bool = False


@dataclass(frozen=True)
class Found:
    """A misconception recognised in an answer: its id, the facts its sentence needs (`args`,
    in the order of the feedback function), or an instructor's own sentence (`said`), and the
    remedy checked before its sentence proposes it (`remedy`)."""

    misconception: str
    args: tuple = ()
    said: str = ""
    remedy: Remedy | None = None


MISCONCEPTIONS: tuple[Misconception, ...] = (
    Misconception("autograd", "reaches autograd instead of writing the gradient by hand"),
    Misconception("unknown_name", "uses a name the exercise does not provide"),
    Misconception("matmul_shapes", "multiplies matrices whose inner sizes do not match"),
    Misconception("broadcast_clash", "combines two tensors that do not broadcast"),
    Misconception("bad_view", "reshapes with typed sizes that do not hold the elements"),
    Misconception("non_finite", "produces nan or inf (a division by zero, a log of zero)"),
    Misconception("keepdim_lost", "sums away a dimension that keepdim=True would keep"),
    Misconception("broadcast_not_summed", "does not sum over a dim the forward pass broadcast"),
    Misconception("summed_wrong_dim", "sums over the wrong dimension"),
    Misconception("summed_not_broadcast", "sums where every element has its own gradient"),
    Misconception("wrong_shape", "has right-sized values in the wrong shape"),
    Misconception("values_right_shape_wrong", "has the right values in the wrong shape"),
    Misconception("transposed", "is the transpose of the gradient"),
    Misconception(
        "listed_mistake", "is a mistake an exercise listed without an id (older attempts)"
    ),
    Misconception("missing_branch", "leaves out the contribution of a consumer"),
    Misconception("branch_sign_flipped", "flips the sign of one consumer's contribution"),
    Misconception("branch_factor", "scales one consumer's contribution by a constant"),
    Misconception("sign_flipped", "has the opposite sign"),
    Misconception("bessel", "divides by n where the forward pass divides by n-1, or back"),
    Misconception("constant_factor", "is off by a constant factor"),
    Misconception("mask_ignored", "sends gradient where the forward pass masked values out"),
    Misconception("wrong_values", "is wrong in some rows and columns, with no known pattern"),
    Misconception("all_zero", "is all zeros where the true gradient is only almost zero"),
    Misconception("upstream_ignored", "is right only for the lecture's upstream gradients"),
    Misconception("hard_coded_size", "types a size (32, 64, 27) instead of reading it"),
    Misconception("zero_by_coincidence", "writes zeros that pass on one batch by coincidence"),
    Misconception("local_only", "stops at the local derivative, without the upstream gradient"),
    Misconception(
        "wrong_local_derivative", "multiplies the upstream gradient by a wrong local derivative"
    ),
    Misconception("no_local_derivative", "passes the upstream gradient through unchanged"),
    Misconception("index_targets", "scatters the targets' gradient with the wrong indexing"),
    Misconception("fused_term", "drops, negates or rescales one term of a fused formula"),
    Misconception("stats_constant", "treats a normalisation's mean and variance as constants"),
    Misconception("sums_multiplied", "multiplies two batch sums instead of summing products"),
    Misconception("matmul_for_elementwise", "uses `@` where the forward pass multiplies elements"),
    Misconception("power_rule", "leaves out the exponent the power rule brings down"),
    Misconception("summed_everything", "sums every entry where only the broadcast dims add up"),
    Misconception("formula_wrong", "is wrong almost everywhere: the formula, not an index"),
    Misconception("index_add_shape", "gives index_add_ a source whose rows do not match the index"),
    Misconception("max_wrong_dim", "takes the max over the wrong dim"),
    Misconception("wrong_tensor", "writes a fused formula with the wrong forward tensor"),
    Misconception("pair_not_taken", "passes max's (values, indices) pair where a tensor belongs"),
    Misconception("index_dims", "gives scatter_ or gather an index of fewer dims than the tensor"),
    Misconception("method_not_called", "uses a method such as `.t` without calling it"),
    Misconception("transpose_no_dims", "calls transpose() without the two dims to swap"),
    Misconception("index_out_of_range", "indexes past the end of a dim (rows and columns swapped)"),
    Misconception("derivative_twice", "applies a local derivative twice"),
    Misconception("power_kept", "keeps the exponent where the power rule lowers it by one"),
    Misconception("zeros_only", "is all zeros: nothing was written into the gradient"),
    Misconception("target_entries", "is wrong only at the targets' entries"),
    Misconception("matmul_for_sum", "uses `@` where elements multiply and the batch is summed"),
    Misconception("missing_factor", "leaves out, or adds, a factor that is a tensor in scope"),
    Misconception("softmax_wrong_dim", "takes the softmax over the wrong dim"),
    Misconception("fused_wrong_dim", "sums a fused formula over another dim than its statistics"),
    Misconception("index_order", "indexes with the targets first, `[Yb, range(n)]`"),
    Misconception("neighbour_step", "applies a factor of the next step, or the previous one again"),
    Misconception("partial_derivative", "leaves a factor or the upstream gradient out of a branch"),
    Misconception("embedding_routing", "sends an embedding's gradient to the wrong rows"),
    Misconception("precedence", "relies on operator precedence that groups the formula wrongly"),
    Misconception("one_hot_width", "makes a one-hot without num_classes, too narrow"),
    Misconception("outside_language", "writes a construct outside the exercise language"),
)
IDS: tuple[str, ...] = tuple(m.id for m in MISCONCEPTIONS)

(
    AUTOGRAD,
    UNKNOWN_NAME,
    MATMUL_SHAPES,
    BROADCAST_CLASH,
    BAD_VIEW,
    NON_FINITE,
    KEEPDIM_LOST,
    BROADCAST_NOT_SUMMED,
    SUMMED_WRONG_DIM,
    SUMMED_NOT_BROADCAST,
    WRONG_SHAPE,
    VALUES_RIGHT_SHAPE_WRONG,
    TRANSPOSED,
    LISTED_MISTAKE,
    MISSING_BRANCH,
    BRANCH_SIGN_FLIPPED,
    BRANCH_FACTOR,
    SIGN_FLIPPED,
    BESSEL,
    CONSTANT_FACTOR,
    MASK_IGNORED,
    WRONG_VALUES,
    ALL_ZERO,
    UPSTREAM_IGNORED,
    HARD_CODED_SIZE,
    ZERO_BY_COINCIDENCE,
    LOCAL_ONLY,
    WRONG_LOCAL_DERIVATIVE,
    NO_LOCAL_DERIVATIVE,
    INDEX_TARGETS,
    FUSED_TERM,
    STATS_CONSTANT,
    SUMS_MULTIPLIED,
    MATMUL_FOR_ELEMENTWISE,
    POWER_RULE,
    SUMMED_EVERYTHING,
    FORMULA_WRONG,
    INDEX_ADD_SHAPE,
    MAX_WRONG_DIM,
    WRONG_TENSOR,
    PAIR_NOT_TAKEN,
    INDEX_DIMS,
    METHOD_NOT_CALLED,
    TRANSPOSE_NO_DIMS,
    INDEX_OUT_OF_RANGE,
    DERIVATIVE_TWICE,
    POWER_KEPT,
    ZEROS_ONLY,
    TARGET_ENTRIES,
    MATMUL_FOR_SUM,
    MISSING_FACTOR,
    SOFTMAX_WRONG_DIM,
    FUSED_WRONG_DIM,
    INDEX_ORDER,
    NEIGHBOUR_STEP,
    PARTIAL_DERIVATIVE,
    EMBEDDING_ROUTING,
    PRECEDENCE,
    ONE_HOT_WIDTH,
    OUTSIDE_LANGUAGE,
) = IDS
BESSEL_FACTORS = ("n-1", "1/(n-1)", "n/(n-1)", "(n-1)/n")  # a factor of these is Bessel's


def known(misconception: str) -> bool:
    """Return whether an id is one of the list (or "", no misconception)."""
    return misconception == "" or misconception in IDS
