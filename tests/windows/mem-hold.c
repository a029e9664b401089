/*
 * mem-hold.exe MIB MS [CHILDREN]: commits and writes MIB MiB, starts CHILDREN
 * copies of itself holding as much (in the same job, as hmn run's tree), holds
 * it all for MS milliseconds, then exits 0. A stand-in for a job that needs
 * host memory, under Wine.
 */
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	if (argc < 3)
		return 2;
	size_t bytes = (size_t)strtoul(argv[1], NULL, 10) << 20;
	DWORD ms = (DWORD)strtoul(argv[2], NULL, 10);
	unsigned children = argc > 3 ? (unsigned)strtoul(argv[3], NULL, 10) : 0;
	char *block = VirtualAlloc(NULL, bytes, MEM_COMMIT | MEM_RESERVE, PAGE_READWRITE);
	if (!block)
		return 3;
	memset(block, 'x', bytes);
	HANDLE started[16];
	unsigned n = 0;
	for (; n < children && n < 16; n++) {
		char self[MAX_PATH], line[MAX_PATH + 64];
		STARTUPINFOA si = { .cb = sizeof(si) };
		PROCESS_INFORMATION pi;
		GetModuleFileNameA(NULL, self, sizeof(self));
		snprintf(line, sizeof(line), "\"%s\" %s %s", self, argv[1], argv[2]);
		if (!CreateProcessA(self, line, NULL, NULL, FALSE, 0, NULL, NULL, &si, &pi))
			return 4;
		CloseHandle(pi.hThread);
		started[n] = pi.hProcess;
	}
	Sleep(ms);
	for (unsigned i = 0; i < n; i++) {
		WaitForSingleObject(started[i], INFINITE);
		CloseHandle(started[i]);
	}
	return 0;
}
