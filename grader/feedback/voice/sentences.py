"""The sentence of each misconception id: a Found said as a hint, or as the first sentence's
diagnosis."""

from __future__ import annotations

from grader import misconceptions as m
from grader.feedback.voice import claims, diagnoses, hints, steps
from grader.misconceptions import Found

__all__ = ["HINT", "NOT_A_DIAGNOSIS", "SENTENCES", "diagnosis", "hint"]


def hint(found: Found | None) -> str:
    """Return the hint sentence for a misconception found (its instructor's, if it has one)."""
    if found is None:
        return ""
    return found.said or SENTENCES[found.misconception](*found.args)


HINT = "Hint: "


# Found, but not a mistake named: where the values differ is evidence, said after the numbers.
NOT_A_DIAGNOSIS = (m.WRONG_VALUES,)


def diagnosis(found: Found | None) -> str:
    """Return the misconception found as the first sentence's diagnosis (its hint without the
    "Hint: " head), or "" when nothing is named: the check's evidence then comes first."""
    if found is None or found.misconception in NOT_A_DIAGNOSIS:
        return ""
    return hint(found).removeprefix(HINT)


# The sentence of each misconception id (grader/misconceptions.py), given its Found's args.
SENTENCES = {
    m.AUTOGRAD: hints.hint_autograd,
    m.UNKNOWN_NAME: hints.hint_unknown_name,
    m.MATMUL_SHAPES: hints.hint_matmul,
    m.BROADCAST_CLASH: hints.hint_broadcast_clash,
    m.BAD_VIEW: hints.hint_bad_view,
    m.NON_FINITE: hints.hint_nonfinite,
    m.KEEPDIM_LOST: hints.hint_keepdim,
    m.BROADCAST_NOT_SUMMED: hints.hint_sum_dims,
    m.SUMMED_WRONG_DIM: hints.hint_wrong_sum,
    m.SUMMED_NOT_BROADCAST: hints.hint_broadcast_back,
    m.WRONG_SHAPE: hints.hint_reshape,
    m.VALUES_RIGHT_SHAPE_WRONG: hints.hint_values_right_shape_wrong,
    m.TRANSPOSED: hints.hint_transpose,
    m.LISTED_MISTAKE: lambda: "",  # an exercise's listed mistake says its own sentence
    m.MISSING_BRANCH: hints.hint_missing_consumer,
    m.BRANCH_SIGN_FLIPPED: hints.hint_branch_sign,
    m.BRANCH_FACTOR: hints.hint_branch_factor,
    m.SIGN_FLIPPED: hints.hint_sign,
    m.BESSEL: hints.hint_factor,
    m.CONSTANT_FACTOR: hints.hint_factor,
    m.MASK_IGNORED: hints.hint_masked,
    m.WRONG_VALUES: claims.hint_where,
    m.ALL_ZERO: hints.hint_all_zero,
    m.UPSTREAM_IGNORED: hints.hint_random_only,
    m.HARD_CODED_SIZE: hints.hint_hard_coded,
    m.ZERO_BY_COINCIDENCE: hints.hint_zero_by_coincidence,
    m.LOCAL_ONLY: diagnoses.hint_local_only,
    m.WRONG_LOCAL_DERIVATIVE: diagnoses.hint_wrong_local_derivative,
    m.NO_LOCAL_DERIVATIVE: diagnoses.hint_no_local_derivative,
    m.INDEX_TARGETS: diagnoses.hint_index_targets,
    m.FUSED_TERM: diagnoses.hint_fused_term,
    m.STATS_CONSTANT: diagnoses.hint_stats_constant,
    m.SUMS_MULTIPLIED: diagnoses.hint_sums_multiplied,
    m.MATMUL_FOR_ELEMENTWISE: hints.hint_matmul_for_elementwise,
    m.POWER_RULE: diagnoses.hint_power_rule,
    m.SUMMED_EVERYTHING: hints.hint_summed_everything,
    m.FORMULA_WRONG: claims.hint_formula_wrong,
    m.INDEX_ADD_SHAPE: hints.hint_index_add_shape,
    m.MAX_WRONG_DIM: hints.hint_max_wrong_dim,
    m.WRONG_TENSOR: diagnoses.hint_wrong_tensor,
    m.PAIR_NOT_TAKEN: hints.hint_pair_not_taken,
    m.DERIVATIVE_TWICE: diagnoses.hint_derivative_twice,
    m.TARGET_ENTRIES: diagnoses.hint_target_entries,
    m.ZEROS_ONLY: diagnoses.hint_zeros_only,
    m.MATMUL_FOR_SUM: hints.hint_matmul_for_sum,
    m.SOFTMAX_WRONG_DIM: diagnoses.hint_softmax_wrong_dim,
    m.MISSING_FACTOR: diagnoses.hint_missing_factor,
    m.POWER_KEPT: diagnoses.hint_power_kept,
    m.INDEX_DIMS: hints.hint_index_dims,
    m.METHOD_NOT_CALLED: hints.hint_method_not_called,
    m.TRANSPOSE_NO_DIMS: hints.hint_transpose_no_dims,
    m.INDEX_OUT_OF_RANGE: hints.hint_index_out_of_range,
    m.FUSED_WRONG_DIM: diagnoses.hint_fused_wrong_dim,
    m.INDEX_ORDER: diagnoses.hint_index_order,
    m.NEIGHBOUR_STEP: steps.hint_neighbour_step,
    m.PARTIAL_DERIVATIVE: steps.hint_partial_derivative,
    m.EMBEDDING_ROUTING: steps.hint_embedding_routing,
    m.PRECEDENCE: steps.hint_precedence,
    m.ONE_HOT_WIDTH: steps.hint_one_hot_width,
    m.OUTSIDE_LANGUAGE: hints.hint_outside_language,
}
