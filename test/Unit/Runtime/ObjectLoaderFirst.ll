; The first object of ObjectLoaderTest: every kind of relocation the host
; code pw-compile makes, compiled by llc (-relocation-model=pic).
@counter = global i32 0
@message = private constant [6 x i8] c"hello\00"
@external_value = external global i32
@weak_missing = extern_weak global i32
@table = global [2 x ptr] [ptr @add_one, ptr @counter]

declare i64 @strlen(ptr)
declare void @record_fini(i32)

define i32 @add_one(i32 %x) {
  %y = add i32 %x, 1
  ret i32 %y
}

; A call out of the mapping (PLT32 through a trampoline) of a constant's address
; (PC32).
define i64 @message_length() {
  %n = call i64 @strlen(ptr @message)
  ret i64 %n
}

; A load through the global offset table (REX_GOTPCRELX).
define i32 @read_external() {
  %v = load i32, ptr @external_value
  ret i32 %v
}

define i32 @get_counter() {
  %v = load i32, ptr @counter
  ret i32 %v
}

define i1 @has_weak() {
  %present = icmp ne ptr @weak_missing, null
  ret i1 %present
}

define void @__pwc_library_init_0() {
  store i32 41, ptr @counter
  ret void
}

define void @__pwc_library_fini_0() {
  %v = load i32, ptr @counter
  call void @record_fini(i32 %v)
  ret void
}
