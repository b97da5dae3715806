//! The field names of a struct that derives `Deserialize`, read from serde itself.
//!
//! serde's derive hands a struct's field names to `deserialize_struct`; a deserializer
//! that keeps them and stops there tells them without a list written a second time,
//! which would fall behind when a field is added.

use serde::de::{Deserialize, Deserializer, Error as _, Visitor, value::Error};

/// The names `T`'s `Deserialize` accepts as fields (none for a type that is not a
/// struct).
pub(super) fn field_names<'de, T: Deserialize<'de>>() -> &'static [&'static str] {
    let mut fields: &'static [&'static str] = &[];
    // The error is how the reader stops; the names are what it came for.
    let _ = T::deserialize(FieldReader(&mut fields));
    fields
}

/// Keeps the field names of the struct asked for, and deserializes nothing.
struct FieldReader<'a>(&'a mut &'static [&'static str]);

impl<'de> Deserializer<'de> for FieldReader<'_> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, _visitor: V) -> Result<V::Value, Error> {
        Err(Error::custom("not a struct"))
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        fields: &'static [&'static str],
        _visitor: V,
    ) -> Result<V::Value, Error> {
        *self.0 = fields;
        Err(Error::custom("field names read"))
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct newtype_struct seq tuple tuple_struct map enum identifier
        ignored_any
    }
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;

    use super::field_names;

    #[derive(Deserialize)]
    #[serde(default)]
    #[allow(dead_code)]
    #[derive(Default)]
    struct Section {
        first: u8,
        #[serde(rename = "second_name")]
        second: String,
    }

    #[test]
    fn names_are_the_ones_serde_reads() {
        assert_eq!(field_names::<Section>(), ["first", "second_name"]);
        assert!(field_names::<u8>().is_empty());
    }
}
