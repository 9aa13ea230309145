package atomicfile

// sysSyncfs is syncfs(2)'s number, which package syscall omits on amd64.
const sysSyncfs = 306
