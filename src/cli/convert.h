/* convert.h: the convert command of linkwright-cli (convert.c). */
#pragma once

/* argv after "convert"; returns the exit code (0 ok, 1 usage, 2 model error) */
int lw_cli_convert(int argc, char **argv);
