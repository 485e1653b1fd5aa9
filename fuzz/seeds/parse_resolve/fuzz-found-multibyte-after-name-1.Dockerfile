# Defaults nested 40 deep (issue 13): each level used to be a recursion and a scan of the rest;
# 20,000 levels overflowed the stack. Refused past resolve::MAX_NESTING.
.04:7.2.4
ARG V=${X:-${X:-${X:-${X:-${X:-${X:-${X:-${X:-${X:-${X:-${X:-${X:-${X:-${X:-${X:-${X:-${X:-${X:-${X:-${X:-${X:-${X:-${X:-${X:-${X:-${X:-${X:-${X:-${X:-${X:-${XȺ:-${X:-${X:-${X:-${X:-${X:-${X:-${X:-${X:-${X:-x}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}
