"""celext's static cost estimate: cel-go's estimator with the Kubernetes and DRA size and call estimators.

- `celext.cost.sizes`: saturating cost/size ranges and the sizes Kubernetes assumes for a device;
- `celext.cost.estimator`: `estimate(checked) -> (min, max)`.

Kubernetes refuses a selector whose estimated maximum exceeds `COST_LIMIT` when it is created.
"""

COST_LIMIT = 1_000_000  # resourceapi.CELSelectorExpressionMaxCost
TOO_COSTLY = "too complex, exceeds cost limit"  # the API server's Forbidden detail
