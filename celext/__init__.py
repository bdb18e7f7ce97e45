"""celext: the Kubernetes DRA CEL environment on cel-python.

Public surface (see README): `compile(expression) -> Selector`, `Selector.matches(device, driver=...)`,
`to_device(device, driver)`, and the errors `CELError`, `CompileError`, `EvaluationError`.
"""
