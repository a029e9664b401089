/*
 * mem-hold.exe MIB MS [CHILDREN]: commits and writes MIB MiB, starts CHILDREN
 * copies of itself holding as much (in the same job, as hmn run's tree), holds
 * it all for MS milliseconds, then exits 0. A stand-in for a job that needs
 * host memory, under Wine. With MEM_HOLD_PID_FILE set, once it holds its
 * memory it writes its process id there: Windows' own, which wine64 never
 * shows and Wine's tasklist.exe (a stub) cannot list, for a test that kills it.
 */
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * Writes this process's id to the file MEM_HOLD_PID_FILE names, then unsets it, so the
 * copies it starts (which inherit its environment) never overwrite it. Returns 0 (also
 * where it is not set), or -1 where the name is too long or the file cannot be written.
 */
static int write_pid_file(void)
{
	char path[MAX_PATH];
	DWORD n = GetEnvironmentVariableA("MEM_HOLD_PID_FILE", path, sizeof(path));
	if (n == 0)
		return 0;
	if (n >= sizeof(path))
		return -1;
	SetEnvironmentVariableA("MEM_HOLD_PID_FILE", NULL);
	FILE *f = fopen(path, "w");
	if (!f)
		return -1;
	fprintf(f, "%lu\n", (unsigned long)GetCurrentProcessId());
	return fclose(f) == 0 ? 0 : -1;
}

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
	if (write_pid_file() < 0)
		return 5;
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
