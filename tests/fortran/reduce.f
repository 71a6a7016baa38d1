! tests/fortran/reduce.f: reductions from Fortran with every Fortran
! datatype and the ops the standard allows on it: INTEGER, INTEGER8,
! REAL, DOUBLE PRECISION (SUM PROD MAX MIN), COMPLEX, DOUBLE COMPLEX
! (SUM PROD), INTEGER (BAND BOR BXOR), LOGICAL (LAND LOR LXOR, with true
! values other than 1: any non-zero is true, results are exactly 0 or 1
! when an op is applied, i.e. with more than one process),
! 2INTEGER, 2REAL, 2DOUBLE_PRECISION (MAXLOC MINLOC), through Allreduce,
! Reduce and MPI_IN_PLACE; ops not allowed on a type (MAX on COMPLEX,
! LAND on INTEGER ...) return MPI_ERR_OP. Prints PASS.
      program reduce
      implicit none
      include 'mpif.h'
      integer rank, p, ierr, i, root
      integer ia(4), ib(4), iexp(4)
      integer*8 la(2), lb(2)
      real ra(4), rb(4)
      double precision da(4), db(4)
      complex ca(2), cb(2), cexp(2)
      double complex za(2), zb(2), zexp(2)
      integer lg(3), lr(3)
      integer pi(2), pio(2)
      real pr(2), pro(2)
      double precision pd(2), pdo(2)

      call mpi_init(ierr)
      call mpi_comm_rank(MPI_COMM_WORLD, rank, ierr)
      call mpi_comm_size(MPI_COMM_WORLD, p, ierr)

c     ---- INTEGER: SUM PROD MAX MIN, Allreduce ----
      do i = 1, 4
         ia(i) = rank + i
      enddo
      call mpi_allreduce(ia, ib, 4, MPI_INTEGER, MPI_SUM,
     &     MPI_COMM_WORLD, ierr)
      do i = 1, 4
         iexp(i) = p * (p - 1) / 2 + p * i
      enddo
      call checki(ib, iexp, 4, 'INTEGER SUM')
      ia(1) = rank + 1
      call mpi_allreduce(ia, ib, 1, MPI_INTEGER, MPI_PROD,
     &     MPI_COMM_WORLD, ierr)
      iexp(1) = 1
      do i = 2, p
         iexp(1) = iexp(1) * i
      enddo
      call checki(ib, iexp, 1, 'INTEGER PROD')
      call mpi_allreduce(ia, ib, 1, MPI_INTEGER, MPI_MAX,
     &     MPI_COMM_WORLD, ierr)
      iexp(1) = p
      call checki(ib, iexp, 1, 'INTEGER MAX')
      call mpi_allreduce(ia, ib, 1, MPI_INTEGER, MPI_MIN,
     &     MPI_COMM_WORLD, ierr)
      iexp(1) = 1
      call checki(ib, iexp, 1, 'INTEGER MIN')
c     bitwise: bit r set on rank r
      ia(1) = 2 ** mod(rank, 30)
      ia(2) = 2 ** mod(rank, 30)
      ia(3) = 1
      call mpi_allreduce(ia, ib, 3, MPI_INTEGER, MPI_BOR,
     &     MPI_COMM_WORLD, ierr)
      iexp(1) = 2 ** min(p, 30) - 1
      call checki(ib, iexp, 1, 'INTEGER BOR')
      call mpi_allreduce(ia, ib, 3, MPI_INTEGER, MPI_BAND,
     &     MPI_COMM_WORLD, ierr)
      iexp(3) = 1
      call checki(ib(3), iexp(3), 1, 'INTEGER BAND')
      call mpi_allreduce(ia, ib, 3, MPI_INTEGER, MPI_BXOR,
     &     MPI_COMM_WORLD, ierr)
      iexp(3) = mod(p, 2)
      call checki(ib(3), iexp(3), 1, 'INTEGER BXOR')

c     ---- INTEGER8 ----
      la(1) = 2_8 ** 40 + rank
      la(2) = -rank
      call mpi_allreduce(la, lb, 2, MPI_INTEGER8, MPI_SUM,
     &     MPI_COMM_WORLD, ierr)
      call check(lb(1) .eq. p * 2_8 ** 40 + p * (p - 1) / 2 .and.
     &     lb(2) .eq. -(p * (p - 1) / 2), 'INTEGER8 SUM')
      call mpi_allreduce(la, lb, 2, MPI_INTEGER8, MPI_MIN,
     &     MPI_COMM_WORLD, ierr)
      call check(lb(1) .eq. 2_8 ** 40 .and. lb(2) .eq. -(p - 1),
     &     'INTEGER8 MIN')

c     ---- REAL and DOUBLE PRECISION (values exact in binary) ----
      do i = 1, 4
         ra(i) = real(rank) + 0.5 * i
         da(i) = dble(rank) + 0.25d0 * i
      enddo
      call mpi_allreduce(ra, rb, 4, MPI_REAL, MPI_SUM,
     &     MPI_COMM_WORLD, ierr)
      do i = 1, 4
         call check(rb(i) .eq. real(p * (p - 1) / 2) + p * 0.5 * i,
     &        'REAL SUM')
      enddo
      call mpi_allreduce(da, db, 4, MPI_DOUBLE_PRECISION, MPI_SUM,
     &     MPI_COMM_WORLD, ierr)
      do i = 1, 4
         call check(db(i) .eq. dble(p * (p - 1) / 2) + p * 0.25d0 * i,
     &        'DOUBLE PRECISION SUM')
      enddo
      call mpi_allreduce(ra, rb, 4, MPI_REAL, MPI_MAX,
     &     MPI_COMM_WORLD, ierr)
      call check(rb(2) .eq. real(p - 1) + 1.0, 'REAL MAX')
      call mpi_allreduce(da, db, 4, MPI_DOUBLE_PRECISION, MPI_MIN,
     &     MPI_COMM_WORLD, ierr)
      call check(db(4) .eq. 1.0d0, 'DOUBLE PRECISION MIN')
      da(1) = 2.0d0
      ra(1) = 0.5
      call mpi_allreduce(da, db, 1, MPI_DOUBLE_PRECISION, MPI_PROD,
     &     MPI_COMM_WORLD, ierr)
      call check(db(1) .eq. 2.0d0 ** p, 'DOUBLE PRECISION PROD')
      call mpi_allreduce(ra, rb, 1, MPI_REAL, MPI_PROD,
     &     MPI_COMM_WORLD, ierr)
      call check(rb(1) .eq. 0.5 ** p, 'REAL PROD')

c     ---- COMPLEX and DOUBLE COMPLEX: SUM PROD ----
      ca(1) = cmplx(real(rank + 1), 1.0)
      ca(2) = cmplx(0.0, 1.0)
      za(1) = dcmplx(dble(rank + 1), -2.0d0)
      za(2) = dcmplx(1.0d0, 1.0d0)
      call mpi_allreduce(ca, cb, 2, MPI_COMPLEX, MPI_SUM,
     &     MPI_COMM_WORLD, ierr)
      cexp(1) = cmplx(real(p * (p + 1) / 2), real(p))
      cexp(2) = cmplx(0.0, real(p))
      call check(cb(1) .eq. cexp(1) .and. cb(2) .eq. cexp(2),
     &     'COMPLEX SUM')
      call mpi_allreduce(za, zb, 2, MPI_DOUBLE_COMPLEX, MPI_SUM,
     &     MPI_COMM_WORLD, ierr)
      zexp(1) = dcmplx(dble(p * (p + 1) / 2), -2.0d0 * p)
      zexp(2) = dcmplx(dble(p), dble(p))
      call check(zb(1) .eq. zexp(1) .and. zb(2) .eq. zexp(2),
     &     'DOUBLE COMPLEX SUM')
c     products of i and of (1+i): exact in binary
      call mpi_allreduce(ca(2), cb(2), 1, MPI_COMPLEX, MPI_PROD,
     &     MPI_COMM_WORLD, ierr)
      call check(cb(2) .eq. (0.0, 1.0) ** p, 'COMPLEX PROD')
      call mpi_allreduce(za(2), zb(2), 1, MPI_DOUBLE_COMPLEX, MPI_PROD,
     &     MPI_COMM_WORLD, ierr)
      call check(zb(2) .eq. (1.0d0, 1.0d0) ** p, 'DOUBLE COMPLEX PROD')

c     ---- LOGICAL, stored as INTEGERs to have true values other than 1
c     lg(1): true everywhere (value rank+2); lg(2): true on rank 0 only
c     (value 7); lg(3): false everywhere
      lg(1) = rank + 2
      lg(2) = 0
      if (rank .eq. 0) lg(2) = 7
      lg(3) = 0
      call mpi_allreduce(lg, lr, 3, MPI_LOGICAL, MPI_LAND,
     &     MPI_COMM_WORLD, ierr)
      iexp(1) = 1
      iexp(2) = 0
      if (p .eq. 1) iexp(2) = 1
      iexp(3) = 0
c     one process applies no op: the result is the input, as it was
      if (p .eq. 1) then
         iexp(1) = lg(1)
         iexp(2) = lg(2)
      endif
      call checki(lr, iexp, 3, 'LOGICAL LAND')
      call mpi_allreduce(lg, lr, 3, MPI_LOGICAL, MPI_LOR,
     &     MPI_COMM_WORLD, ierr)
      iexp(1) = 1
      iexp(2) = 1
      iexp(3) = 0
      if (p .eq. 1) then
         iexp(1) = lg(1)
         iexp(2) = lg(2)
      endif
      call checki(lr, iexp, 3, 'LOGICAL LOR')
      call mpi_allreduce(lg, lr, 3, MPI_LOGICAL, MPI_LXOR,
     &     MPI_COMM_WORLD, ierr)
      iexp(1) = mod(p, 2)
      iexp(2) = 1
      iexp(3) = 0
      if (p .eq. 1) then
         iexp(1) = lg(1)
         iexp(2) = lg(2)
      endif
      call checki(lr, iexp, 3, 'LOGICAL LXOR')
      call logical_typed(rank, p)

c     ---- MAXLOC / MINLOC: value rank/2 (ties: the lower index) ----
      pi(1) = rank / 2
      pi(2) = rank
      call mpi_allreduce(pi, pio, 1, MPI_2INTEGER, MPI_MAXLOC,
     &     MPI_COMM_WORLD, ierr)
      call check(pio(1) .eq. (p - 1) / 2 .and.
     &     pio(2) .eq. 2 * ((p - 1) / 2), '2INTEGER MAXLOC')
      call mpi_allreduce(pi, pio, 1, MPI_2INTEGER, MPI_MINLOC,
     &     MPI_COMM_WORLD, ierr)
      call check(pio(1) .eq. 0 .and. pio(2) .eq. 0, '2INTEGER MINLOC')
      pr(1) = -real(rank / 2)
      pr(2) = real(rank)
      call mpi_allreduce(pr, pro, 1, MPI_2REAL, MPI_MINLOC,
     &     MPI_COMM_WORLD, ierr)
      call check(pro(1) .eq. -real((p - 1) / 2) .and.
     &     pro(2) .eq. real(2 * ((p - 1) / 2)), '2REAL MINLOC')
      pd(1) = dble(rank / 2)
      pd(2) = dble(rank)
      call mpi_allreduce(pd, pdo, 1, MPI_2DOUBLE_PRECISION, MPI_MAXLOC,
     &     MPI_COMM_WORLD, ierr)
      call check(pdo(1) .eq. dble((p - 1) / 2) .and.
     &     pdo(2) .eq. dble(2 * ((p - 1) / 2)),
     &     '2DOUBLE_PRECISION MAXLOC')

c     ---- Reduce to each root, and MPI_IN_PLACE ----
      do root = 0, p - 1
         da(1) = dble(rank)
         db(1) = -1.0d0
         call mpi_reduce(da, db, 1, MPI_DOUBLE_PRECISION, MPI_SUM,
     &        root, MPI_COMM_WORLD, ierr)
         if (rank .eq. root) then
            call check(db(1) .eq. dble(p * (p - 1) / 2), 'Reduce SUM')
         else
            call check(db(1) .eq. -1.0d0, 'Reduce touched non-root')
         endif
         ia(1) = rank
         if (rank .eq. root) then
            call mpi_reduce(MPI_IN_PLACE, ia, 1, MPI_INTEGER, MPI_MAX,
     &           root, MPI_COMM_WORLD, ierr)
            iexp(1) = p - 1
            call checki(ia, iexp, 1, 'Reduce IN_PLACE MAX')
         else
            call mpi_reduce(ia, ib, 1, MPI_INTEGER, MPI_MAX,
     &           root, MPI_COMM_WORLD, ierr)
         endif
      enddo
      do i = 1, 4
         da(i) = dble(rank * i)
      enddo
      call mpi_allreduce(MPI_IN_PLACE, da, 4, MPI_DOUBLE_PRECISION,
     &     MPI_SUM, MPI_COMM_WORLD, ierr)
      do i = 1, 4
         call check(da(i) .eq. dble(i * p * (p - 1) / 2),
     &        'Allreduce IN_PLACE')
      enddo

c     ---- the full SUM PROD MAX MIN matrix on the real and integer
c     types, and ops the standard does not allow on a type ----
      call matrix(rank, p)
      call refused(rank)

      call mpi_barrier(MPI_COMM_WORLD, ierr)
      if (rank .eq. 0) print '(A)', 'PASS'
      call mpi_finalize(ierr)
      end

c     value rank+1 on every rank: SUM p(p+1)/2, PROD p!, MAX p, MIN 1
      subroutine matrix(rank, p)
      implicit none
      include 'mpif.h'
      integer rank, p, ierr, k, ops(4)
      integer ia, ib
      integer*8 la, lb
      real ra, rb
      double precision da, db, want(4)
      character*4 names(4)
      data ops /MPI_SUM, MPI_PROD, MPI_MAX, MPI_MIN/
      data names /'SUM', 'PROD', 'MAX', 'MIN'/
      want(1) = dble(p * (p + 1) / 2)
      want(2) = 1.0d0
      do k = 2, p
         want(2) = want(2) * k
      enddo
      want(3) = dble(p)
      want(4) = 1.0d0
      ia = rank + 1
      la = rank + 1
      ra = real(rank + 1)
      da = dble(rank + 1)
      do k = 1, 4
         call mpi_allreduce(ia, ib, 1, MPI_INTEGER, ops(k),
     &        MPI_COMM_WORLD, ierr)
         call check(dble(ib) .eq. want(k), 'INTEGER ' // names(k))
         call mpi_allreduce(la, lb, 1, MPI_INTEGER8, ops(k),
     &        MPI_COMM_WORLD, ierr)
         call check(dble(lb) .eq. want(k), 'INTEGER8 ' // names(k))
         call mpi_allreduce(ra, rb, 1, MPI_REAL, ops(k),
     &        MPI_COMM_WORLD, ierr)
         call check(dble(rb) .eq. want(k), 'REAL ' // names(k))
         call mpi_allreduce(da, db, 1, MPI_DOUBLE_PRECISION, ops(k),
     &        MPI_COMM_WORLD, ierr)
         call check(db .eq. want(k), 'DOUBLE PRECISION ' // names(k))
      enddo
      end

c     MAX on COMPLEX, LAND on INTEGER, SUM on LOGICAL, MAXLOC on
c     DOUBLE PRECISION: MPI_ERR_OP under MPI_ERRORS_RETURN
      subroutine refused(rank)
      implicit none
      include 'mpif.h'
      integer rank, ierr, cls, ia, ib
      complex ca, cb
      double precision da, db
      ca = (1.0, 0.0)
      ia = rank
      da = rank
      call mpi_comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN,
     &     ierr)
      call mpi_allreduce(ca, cb, 1, MPI_COMPLEX, MPI_MAX,
     &     MPI_COMM_WORLD, ierr)
      call mpi_error_class(ierr, cls, ierr)
      call check(cls .eq. MPI_ERR_OP, 'MAX on COMPLEX accepted')
      call mpi_allreduce(ia, ib, 1, MPI_INTEGER, MPI_LAND,
     &     MPI_COMM_WORLD, ierr)
      call mpi_error_class(ierr, cls, ierr)
      call check(cls .eq. MPI_ERR_OP, 'LAND on INTEGER accepted')
      call mpi_allreduce(ia, ib, 1, MPI_LOGICAL, MPI_SUM,
     &     MPI_COMM_WORLD, ierr)
      call mpi_error_class(ierr, cls, ierr)
      call check(cls .eq. MPI_ERR_OP, 'SUM on LOGICAL accepted')
      call mpi_allreduce(da, db, 1, MPI_DOUBLE_PRECISION, MPI_MAXLOC,
     &     MPI_COMM_WORLD, ierr)
      call mpi_error_class(ierr, cls, ierr)
      call check(cls .eq. MPI_ERR_OP, 'MAXLOC on DOUBLE accepted')
      call mpi_comm_set_errhandler(MPI_COMM_WORLD,
     &     MPI_ERRORS_ARE_FATAL, ierr)
      end

c     LOGICAL variables proper: .TRUE. everywhere LAND, rank 0 LOR
      subroutine logical_typed(rank, p)
      implicit none
      include 'mpif.h'
      integer rank, p, ierr
      logical a(2), b(2)
      a(1) = .true.
      a(2) = rank .eq. 0
      call mpi_allreduce(a, b, 2, MPI_LOGICAL, MPI_LAND,
     &     MPI_COMM_WORLD, ierr)
      call check(b(1) .and. (b(2) .eqv. (p .eq. 1)),
     &     'LOGICAL vars LAND')
      call mpi_allreduce(a, b, 2, MPI_LOGICAL, MPI_LOR,
     &     MPI_COMM_WORLD, ierr)
      call check(b(1) .and. b(2), 'LOGICAL vars LOR')
      end

      subroutine checki(got, want, n, what)
      implicit none
      integer n, got(n), want(n), i
      character*(*) what
      do i = 1, n
         if (got(i) .ne. want(i)) then
            write (0, '(A,A,A,I3,A,I12,A,I12)') 'FAIL reduce: ', what,
     &           ' element', i, ' got', got(i), ' want', want(i)
            call check(.false., what)
         endif
      enddo
      end

      subroutine check(cond, what)
      implicit none
      include 'mpif.h'
      logical cond
      character*(*) what
      integer ierr
      if (.not. cond) then
         write (0, '(A,A)') 'FAIL reduce: ', what
         call mpi_abort(MPI_COMM_WORLD, 1, ierr)
      endif
      end
