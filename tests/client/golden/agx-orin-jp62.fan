FAN  NAME             SPEED    RPM  PROFILE        CONTROL     GOVERNOR  PROFILES
0    pwmfan           40.0%   2100  cool           close_loop  pid       cool, quiet, manual
