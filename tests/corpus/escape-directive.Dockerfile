# escape=`
# Modelled on: Dockerfiles using the escape directive (backtick continuations), with a moving base.
# expect: RC401
FROM rocm/dev-ubuntu-22.04
RUN apt-get update && `
    apt-get install -y git
