"""The admission webhook's protocol edge and decisions, kept apart from Flask.

`review` parses and answers AdmissionReview JSON (the only module that knows the wire), `response` holds
the frozen `Response` and the helpers that make each common answer one call, and `handlers` maps a parsed
`Request` and a `Policy` to a `Response` by running the rule catalogue.
"""
