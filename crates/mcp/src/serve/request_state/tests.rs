//! The seal against the attacks it is there for: a changed state, a state moved to
//! another call or caller, an expired one and one used twice.

use serde_json::json;

use super::*;

fn state() -> RoundState {
    RoundState {
        answers: BTreeMap::from([(
            "user_name".to_owned(),
            json!({"action": "accept", "content": {"name": "Ann"}}),
        )]),
        kept: BTreeMap::from([("charge".to_owned(), json!("receipt-1"))]),
        expires_ms: 0,
    }
}

fn binding() -> Binding {
    Binding::new("pay", &json!({"amount": 5, "to": "bob"}), Some("alice"))
}

#[test]
fn a_sealed_state_opens_once_for_its_own_call() {
    let seal = StateSeal::random();
    let sealed = seal.seal(state(), &binding());
    assert!(sealed.starts_with(PREFIX));
    assert!(!sealed.contains("receipt-1"), "the state is encrypted: {sealed}");
    // The same arguments in another key order are the same call.
    let same = Binding::new("pay", &json!({"to": "bob", "amount": 5}), Some("alice"));
    let opened = seal.open(&sealed, &same).expect("opens");
    assert_eq!(opened.answers, state().answers);
    assert_eq!(opened.kept, state().kept);
    assert_eq!(seal.open(&sealed, &binding()), Err(StateError::Replayed));
}

#[test]
fn a_changed_state_is_refused() {
    let seal = StateSeal::random();
    let sealed = seal.seal(state(), &binding());
    let mut bytes = URL_SAFE_NO_PAD.decode(&sealed[PREFIX.len()..]).expect("base64");
    for position in [0, NONCE_LEN, bytes.len() - 1] {
        bytes[position] ^= 1;
        let changed = format!("{PREFIX}{}", URL_SAFE_NO_PAD.encode(&bytes));
        assert_eq!(
            seal.open(&changed, &binding()),
            Err(StateError::Tampered),
            "byte {position}"
        );
        bytes[position] ^= 1;
    }
    for text in [
        format!("{sealed}-TAMPERED"),
        sealed[1..].to_owned(),
        String::new(),
        PREFIX.to_owned(),
    ] {
        assert_eq!(seal.open(&text, &binding()), Err(StateError::Tampered), "{text}");
    }
    // Another server's key.
    assert_eq!(
        StateSeal::random().open(&sealed, &binding()),
        Err(StateError::Tampered)
    );
}

#[test]
fn a_state_does_not_open_for_another_call_or_caller() {
    let seal = StateSeal::random();
    let others = [
        Binding::new("pay", &json!({"amount": 500, "to": "bob"}), Some("alice")),
        Binding::new("refund", &json!({"amount": 5, "to": "bob"}), Some("alice")),
        Binding::new("pay", &json!({"amount": 5, "to": "bob"}), Some("mallory")),
        Binding::new("pay", &json!({"amount": 5, "to": "bob"}), None),
        Binding::new("pay", &json!({"amount": 5, "to": "bob"}), Some("")),
    ];
    for other in others {
        let sealed = seal.seal(state(), &binding());
        assert_eq!(seal.open(&sealed, &other), Err(StateError::Tampered), "{other:?}");
    }
}

#[test]
fn an_expired_state_is_refused() {
    let seal = StateSeal::random();
    let sealed = seal.seal_until(state(), &binding(), now_ms() - 1);
    assert_eq!(seal.open(&sealed, &binding()), Err(StateError::Expired));
}

#[test]
fn replicas_sharing_a_key_open_each_others_states() {
    let key = [7u8; 32];
    let sealed = StateSeal::new(&key).seal(state(), &binding());
    assert!(StateSeal::new(&key).open(&sealed, &binding()).is_ok());
}
