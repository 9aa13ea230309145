package atomicfile

// sysSyncfs is syncfs(2)'s number, which package syscall omits on 386.
const sysSyncfs = 344
