//! The parameter types whose deserialization accepts nothing their schema refuses, and
//! reads what it accepts as the usual path would (see the module above for why each is
//! on the list and why others are not).
//!
//! `#[tool]` writes `Plain::<T>::DIRECT` for each parameter type, with [`NotPlain`] in
//! scope. The listed types have an inherent constant `DIRECT = true`, which Rust prefers
//! to a trait's; every other type only has [`NotPlain`]'s `false`. So the answer comes
//! from the type the compiler resolved — an alias of `String` is plain, a user's own
//! type named `String` is not — and a type off the list is never an error.

use std::marker::PhantomData;

/// Asks whether `T` is a plain parameter type: `Plain::<T>::DIRECT`. Not public API.
pub struct Plain<T: ?Sized>(PhantomData<T>);

/// The answer for every type off the list. Not public API.
pub trait NotPlain {
    /// Not plain.
    const DIRECT: bool = false;
}

impl<T: ?Sized> NotPlain for Plain<T> {}

/// Each scalar, and `Option`, `Vec` and `Option<Vec>` of it.
macro_rules! plain {
    ($($scalar:ty),* $(,)?) => {
        $(
            impl Plain<$scalar> {
                /// Plain.
                pub const DIRECT: bool = true;
            }
            impl Plain<Option<$scalar>> {
                /// Plain.
                pub const DIRECT: bool = true;
            }
            impl Plain<Vec<$scalar>> {
                /// Plain.
                pub const DIRECT: bool = true;
            }
            impl Plain<Option<Vec<$scalar>>> {
                /// Plain.
                pub const DIRECT: bool = true;
            }
        )*
    };
}

plain!(
    String, bool, u8, u16, u32, u64, usize, i8, i16, i32, i64, isize, f32, f64,
);

/// Whether every parameter is plain; `#[tool]` passes one [`Plain`] answer per parameter.
pub const fn all_plain(parameters: &[bool]) -> bool {
    let mut index = 0;
    while index < parameters.len() {
        if !parameters[index] {
            return false;
        }
        index += 1;
    }
    true
}

#[cfg(test)]
mod tests {
    #![allow(unused_imports)]
    use super::{NotPlain as _, *};

    type Name = String;

    #[test]
    fn the_listed_types_are_plain_and_others_not() {
        const ANSWERS: [bool; 6] = [
            Plain::<String>::DIRECT,
            Plain::<Name>::DIRECT,
            Plain::<Option<Vec<u64>>>::DIRECT,
            Plain::<u128>::DIRECT,
            Plain::<serde_json::Value>::DIRECT,
            Plain::<Option<Option<String>>>::DIRECT,
        ];
        assert_eq!(ANSWERS, [true, true, true, false, false, false]);
        assert!(all_plain(&[]));
        assert!(!all_plain(&[true, false]));
    }
}
