// Package safefile is the one rule for every file herdbench reads because
// something named it: a scenario (a request's @file body, a vegeta targets
// file and its bodies), a flag (--header-file, the token files) or a
// results folder (herdbench report, merge).
//
// Every such file is
//   - opened without blocking (O_NONBLOCK: a FIFO with no writer is opened
//     at once) and checked on the opened descriptor, never by a path
//     looked at before (fstat, fstatfs): a regular file only, no FIFO,
//     device, socket or folder, and no file of the kernel's (/proc, /sys),
//     whose size says 0 and whose content may never end;
//   - read through a bound (io.LimitReader at the caller's cap, one byte
//     more to tell a longer file), whatever its size says;
//   - never quoted: an error names the file (and a caller a line number),
//     never a byte of it.
//
// Where a file may be depends on who named it:
//   - A scenario's file (Folder.Read) is named relative to the scenario's
//     folder and must be inside it: an absolute path or one that climbs out
//     with ".." is refused before anything is opened, and the file is
//     opened through an os.Root of the folder (openat, component by
//     component), so a symbolic link is followed only while it stays
//     inside, checked at the open itself, not before it. A built-in
//     scenario's folder is the embedded file system it ships in (InFS).
//   - A flag's file (ReadPath) is the user's own choice on their own
//     machine: any path, relative to the working directory or absolute,
//     links followed, but still regular and bounded. A scenario cannot opt
//     out: only a path typed on the command line reaches ReadPath.
//   - A results folder's file (OpenNoLink) is a file herdbench wrote: its
//     name in the folder may not be a symbolic link (O_NOFOLLOW), since a
//     shared folder's link would put a reader's own files in its report.
//
// Observe lets a test see every file opened, to hold the rule (the
// scenario loader's fuzz target asserts that nothing outside the folder is
// opened). Nothing here prints.
package safefile
