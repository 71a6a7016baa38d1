! tests/fortran/types.f: derived datatypes from Fortran. A row of a
! column-major matrix sent with MPI_TYPE_VECTOR, a contiguous type, a
! struct built from MPI_GET_ADDRESS absolute addresses and sent and
! received at MPI_BOTTOM, CHARACTER data, Pack/Unpack, external32
! Pack_external/Unpack_external (big-endian bytes, ADDRESS_KIND
! positions, a blank-padded DATAREP), and the decoding
! of a vector and a struct (MPI_TYPE_GET_ENVELOPE / GET_CONTENTS, with
! INTEGER(KIND=MPI_ADDRESS_KIND) displacements). Ring exchange (each
! rank sends right, receives from the left). Prints PASS.
      program types
      implicit none
      include 'mpif.h'
      integer n
      parameter (n=6)
      double precision a(n, n), row(n), dv, dr
      integer rank, p, ierr, left, right, i, j, rowt, cont, st, sz
      integer iv, ir, bl(2), tys(2), pos
      integer(kind=MPI_ADDRESS_KIND) disp(2), lb, ext
      character*16 s, rs
      character pk(64)
      integer status(MPI_STATUS_SIZE)
      integer ni, na, nd, comb, ints(4), dts(2)
      integer(kind=MPI_ADDRESS_KIND) adds(2), apos, asz
      integer ie(2), ie2(2)

      call mpi_init(ierr)
      call mpi_comm_rank(MPI_COMM_WORLD, rank, ierr)
      call mpi_comm_size(MPI_COMM_WORLD, p, ierr)
      right = mod(rank + 1, p)
      left = mod(rank - 1 + p, p)

c     ---- vector: row 2 of a (stride n) ----
      do j = 1, n
         do i = 1, n
            a(i, j) = rank * 100 + i * 10 + j
         enddo
      enddo
      call mpi_type_vector(n, 1, n, MPI_DOUBLE_PRECISION, rowt, ierr)
      call mpi_type_commit(rowt, ierr)
      call mpi_type_size(rowt, sz, ierr)
      call check(sz .eq. 8 * n, 'vector size')
      call mpi_type_get_extent(rowt, lb, ext, ierr)
      call check(lb .eq. 0 .and. ext .eq. 8 * ((n - 1) * n + 1),
     &     'vector extent')
      call mpi_sendrecv(a(2, 1), 1, rowt, right, 1, row, n,
     &     MPI_DOUBLE_PRECISION, left, 1, MPI_COMM_WORLD, status, ierr)
      do j = 1, n
         call check(row(j) .eq. left * 100 + 20 + j, 'vector row')
      enddo
c     and received into a row of a
      call mpi_sendrecv(row, n, MPI_DOUBLE_PRECISION, right, 2,
     &     a(3, 1), 1, rowt, left, 2, MPI_COMM_WORLD, status, ierr)
      call mpi_get_count(status, rowt, i, ierr)
      call check(i .eq. 1, 'vector Get_count')
      do j = 1, n
         call check(a(3, j) .eq. mod(left - 1 + p, p) * 100 + 20 + j,
     &        'vector into row')
      enddo
      call mpi_type_free(rowt, ierr)
      call check(rowt .eq. MPI_DATATYPE_NULL, 'Type_free')

c     ---- contiguous (column 4; a(3,4) came from the vector test) ----
      a(3, 4) = rank * 100 + 34
      call mpi_type_contiguous(n, MPI_DOUBLE_PRECISION, cont, ierr)
      call mpi_type_commit(cont, ierr)
      call mpi_sendrecv(a(1, 4), 1, cont, right, 3, row, 1, cont,
     &     left, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
      do i = 1, n
         call check(row(i) .eq. left * 100 + i * 10 + 4, 'contiguous')
      enddo
      call mpi_type_free(cont, ierr)

c     ---- struct at MPI_BOTTOM ----
      iv = rank + 1
      dv = rank + 0.5d0
      call mpi_get_address(iv, disp(1), ierr)
      call mpi_get_address(dv, disp(2), ierr)
      bl(1) = 1
      bl(2) = 1
      tys(1) = MPI_INTEGER
      tys(2) = MPI_DOUBLE_PRECISION
      call mpi_type_create_struct(2, bl, disp, tys, st, ierr)
      call mpi_type_commit(st, ierr)
      call mpi_isend(MPI_BOTTOM, 1, st, right, 4, MPI_COMM_WORLD, i,
     &     ierr)
      call mpi_get_address(ir, disp(1), ierr)
      call mpi_get_address(dr, disp(2), ierr)
      call mpi_type_free(st, ierr)
      call mpi_type_create_struct(2, bl, disp, tys, st, ierr)
      call mpi_type_commit(st, ierr)
      call mpi_recv(MPI_BOTTOM, 1, st, left, 4, MPI_COMM_WORLD, status,
     &     ierr)
      call mpi_wait(i, MPI_STATUS_IGNORE, ierr)
      call check(ir .eq. left + 1 .and. dr .eq. left + 0.5d0,
     &     'struct at MPI_BOTTOM')
      call mpi_type_free(st, ierr)

c     ---- CHARACTER ----
      write (s, '(A,I4.4)') 'hello from ', rank
      call mpi_sendrecv(s, 16, MPI_CHARACTER, right, 5, rs, 16,
     &     MPI_CHARACTER, left, 5, MPI_COMM_WORLD, status, ierr)
      write (s, '(A,I4.4)') 'hello from ', left
      call check(rs .eq. s, 'CHARACTER')

c     ---- Pack / Unpack ----
      pos = 0
      iv = 42 + rank
      dv = 1.25d0 * rank
      call mpi_pack(iv, 1, MPI_INTEGER, pk, 64, pos, MPI_COMM_WORLD,
     &     ierr)
      call mpi_pack(dv, 1, MPI_DOUBLE_PRECISION, pk, 64, pos,
     &     MPI_COMM_WORLD, ierr)
      call check(pos .eq. 12, 'Pack position')
      ir = 0
      dr = 0
      pos = 0
      call mpi_unpack(pk, 64, pos, ir, 1, MPI_INTEGER, MPI_COMM_WORLD,
     &     ierr)
      call mpi_unpack(pk, 64, pos, dr, 1, MPI_DOUBLE_PRECISION,
     &     MPI_COMM_WORLD, ierr)
      call check(ir .eq. iv .and. dr .eq. dv, 'Unpack')

c     ---- external32: big-endian INTEGERs ----
      ie(1) = 258
      ie(2) = -1
      call mpi_pack_external_size('external32', 2, MPI_INTEGER, asz,
     &     ierr)
      call check(ierr .eq. MPI_SUCCESS .and. asz .eq. 8,
     &     'Pack_external_size')
      apos = 0
      call mpi_pack_external('external32  ', ie, 2, MPI_INTEGER, pk,
     &     64_MPI_ADDRESS_KIND, apos, ierr)
      call check(ierr .eq. MPI_SUCCESS .and. apos .eq. 8,
     &     'Pack_external position')
      call check(ichar(pk(3)) .eq. 1 .and. ichar(pk(4)) .eq. 2 .and.
     &     ichar(pk(5)) .eq. 255, 'Pack_external big-endian')
      apos = 0
      ie2(1) = 0
      ie2(2) = 0
      call mpi_unpack_external('external32', pk, 8_MPI_ADDRESS_KIND,
     &     apos, ie2, 2, MPI_INTEGER, ierr)
      call check(ierr .eq. MPI_SUCCESS .and. apos .eq. 8 .and.
     &     ie2(1) .eq. 258 .and. ie2(2) .eq. -1, 'Unpack_external')

c     ---- decoding: a vector, a struct, a named type ----
      call mpi_type_vector(3, 2, 5, MPI_REAL, rowt, ierr)
      call mpi_type_get_envelope(rowt, ni, na, nd, comb, ierr)
      call check(ierr .eq. MPI_SUCCESS .and. ni .eq. 3 .and.
     &     na .eq. 0 .and. nd .eq. 1 .and.
     &     comb .eq. MPI_COMBINER_VECTOR, 'envelope vector')
      call mpi_type_get_contents(rowt, 4, 2, 2, ints, adds, dts, ierr)
      call check(ints(1) .eq. 3 .and. ints(2) .eq. 2 .and.
     &     ints(3) .eq. 5 .and. dts(1) .eq. MPI_REAL,
     &     'contents vector')
      call mpi_type_free(rowt, ierr)
      bl(1) = 1
      bl(2) = 3
      disp(1) = 0
      disp(2) = 2_MPI_ADDRESS_KIND**33
      tys(1) = MPI_INTEGER
      tys(2) = MPI_DOUBLE_PRECISION
      call mpi_type_create_struct(2, bl, disp, tys, st, ierr)
      call mpi_type_get_envelope(st, ni, na, nd, comb, ierr)
      call check(ni .eq. 3 .and. na .eq. 2 .and. nd .eq. 2 .and.
     &     comb .eq. MPI_COMBINER_STRUCT, 'envelope struct')
      call mpi_type_get_contents(st, 4, 2, 2, ints, adds, dts, ierr)
      call check(ints(1) .eq. 2 .and. ints(2) .eq. 1 .and.
     &     ints(3) .eq. 3 .and. adds(1) .eq. 0 .and.
     &     adds(2) .eq. 2_MPI_ADDRESS_KIND**33 .and.
     &     dts(1) .eq. MPI_INTEGER .and.
     &     dts(2) .eq. MPI_DOUBLE_PRECISION, 'contents struct')
      call mpi_type_free(st, ierr)
      call mpi_type_get_envelope(MPI_INTEGER, ni, na, nd, comb, ierr)
      call check(comb .eq. MPI_COMBINER_NAMED, 'envelope named')

      call mpi_barrier(MPI_COMM_WORLD, ierr)
      if (rank .eq. 0) print '(A)', 'PASS'
      call mpi_finalize(ierr)
      end

      subroutine check(cond, what)
      implicit none
      include 'mpif.h'
      logical cond
      character*(*) what
      integer ierr
      if (.not. cond) then
         write (0, '(A,A)') 'FAIL types: ', what
         call mpi_abort(MPI_COMM_WORLD, 1, ierr)
      endif
      end
