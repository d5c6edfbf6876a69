; The second object of ObjectLoaderTest: it calls and reads what the first
; defines.
@counter = external global i32

declare i32 @add_one(i32)

define i32 @add_two(i32 %x) {
  %y = call i32 @add_one(i32 %x)
  %z = call i32 @add_one(i32 %y)
  ret i32 %z
}

define void @__pwc_library_init_1() {
  %v = load i32, ptr @counter
  %w = add i32 %v, 1
  store i32 %w, ptr @counter
  ret void
}
