/*
 * A Windows program for hmn run's tests under Wine: "argv-dump exit CODE"
 * ends with that exit code (0xC0000005 as a crash would), "argv-dump
 * c-exit N" calls the C runtime's exit(N) (exit(-1) as a program writes
 * it), "argv-dump crash" writes through a null pointer (a real access
 * violation); otherwise it
 * writes each argument after its name on a line of its own, as UTF-8, so
 * that a test sees exactly what reached COMMAND.
 */
#define WIN32_LEAN_AND_MEAN
#include <fcntl.h>
#include <io.h>
#include <stdio.h>
#include <stdlib.h>
#include <wchar.h>
#include <windows.h>

int wmain(int argc, wchar_t **argv);
int wmain(int argc, wchar_t **argv)
{
	if (argc == 3 && wcscmp(argv[1], L"exit") == 0)
		ExitProcess((UINT)wcstoul(argv[2], NULL, 0));
	if (argc == 3 && wcscmp(argv[1], L"c-exit") == 0)
		exit((int)wcstol(argv[2], NULL, 0));
	if (argc == 2 && wcscmp(argv[1], L"crash") == 0) {
		volatile int *nowhere = NULL;
		*nowhere = 1;
	}
	_setmode(_fileno(stdout), _O_BINARY);
	for (int i = 1; i < argc; i++) {
		char out[4096];
		int n = WideCharToMultiByte(CP_UTF8, 0, argv[i], -1, out, sizeof(out), NULL, NULL);
		if (n <= 0)
			return 3;
		printf("%s\n", out);
	}
	return fflush(stdout) == 0 ? 0 : 4;
}
