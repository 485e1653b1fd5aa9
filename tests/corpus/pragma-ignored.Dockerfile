# Modelled on: a team Dockerfile that tracks rocm/pytorch:latest on purpose and silences the rule.
# expect:
# expect-not: RC401
# rocmcheck ignore=RC401
FROM rocm/pytorch:latest
