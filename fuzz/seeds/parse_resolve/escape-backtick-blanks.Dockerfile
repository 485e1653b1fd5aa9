# escape=`
FROM rocm/dev-ubuntu-24.04:7.2.4
RUN python3 -m pip install ` 	
      torch==2.9.1 `
      --extra-index-url https://download.pytorch.org/whl/cu121
