import { useState } from 'preact/hooks';
import { api, ok } from '../../api/client.js';
import { useMutation, useQuery } from '../../api/query.js';
import { formatDate, formatDateTime, t } from '../../i18n/index.js';
import { useCan, useMe } from '../../session.js';
import { useConfirm } from '../../ui/dialog.js';
import { QueryState } from '../../ui/feedback.js';
import { FormError, SelectField, TextField } from '../../ui/forms.js';
import { Chip, Section } from '../../ui/page.js';
import { toast } from '../../ui/toast.js';
import { fieldOfError } from '../link/link-data.js';
import { succeeded } from './succeeded.js';

type Role = 'owner' | 'admin' | 'member';
const ROLES: Role[] = ['member', 'admin', 'owner'];
/** The roles a person may give: owner only by an owner (the API refuses the rest anyway). */
const roleOptions = (managesOwners: boolean) =>
  ROLES.filter((role) => role !== 'owner' || managesOwners).map((role) => ({ value: role, label: t(`account.role.${role}`) }));

const fetchMembers = async () => (await ok(api.GET('/api/members'))).members;
const fetchInvitations = async () => (await ok(api.GET('/api/invitations'))).invitations;

export function MembersSection() {
  return (
    <>
      <MemberList />
      <Invitations />
    </>
  );
}

/** The account's people: change a role, remove someone (after asking). */
function MemberList() {
  const me = useMe();
  const managesOwners = useCan()('owners');
  const members = useQuery('members', fetchMembers);
  const [confirm, confirmDialog] = useConfirm();
  const changeRole = useMutation(
    (userId: number, role: Role) => ok(api.PATCH('/api/members/{userId}', { params: { path: { userId } }, body: { role } })),
    ['members'],
  );
  const remove = useMutation((userId: number) => succeeded(api.DELETE('/api/members/{userId}', { params: { path: { userId } } })), ['members']);

  const removeMember = async (member: { userId: number; name: string }) => {
    const question = {
      title: t('settings.members.removeTitle', { name: member.name }),
      text: t('settings.members.removeText'),
      action: t('settings.members.remove'),
    };
    if ((await confirm(question)) && (await remove.run(member.userId))) toast(t('settings.members.removed', { name: member.name }));
  };

  return (
    <Section title={t('settings.members.title')} description={t('settings.members.description')}>
      <FormError message={changeRole.error?.message ?? remove.error?.message} />
      <QueryState query={members}>
        {(list) => (
          <ul class="settings-list">
            {list.map((member) => {
              const isMe = member.userId === me.user?.id;
              // An owner is changed and removed only by an owner: an admin sees the row, not controls that would be refused.
              const mayChange = !isMe && (member.role !== 'owner' || managesOwners);
              return (
                <li key={member.userId} class="settings-row">
                  <div class="settings-row-main">
                    <strong>{member.name}</strong>
                    {isMe && <Chip>{t('settings.members.you')}</Chip>}
                    {member.twoFactor && <Chip tone="success">{t('settings.members.twoFactor')}</Chip>}
                    <p class="muted">
                      {member.email} · {t('settings.members.lastSignIn', { when: formatDateTime(member.lastSignInAt) })}
                    </p>
                  </div>
                  <div class="settings-row-actions">
                    <select
                      class="input settings-role"
                      aria-label={t('settings.members.roleOf', { name: member.name })}
                      value={member.role}
                      disabled={!mayChange || changeRole.busy}
                      onChange={(event) => void changeRole.run(member.userId, event.currentTarget.value as Role)}
                    >
                      {roleOptions(managesOwners || member.role === 'owner').map((option) => (
                        <option key={option.value} value={option.value}>
                          {option.label}
                        </option>
                      ))}
                    </select>
                    {mayChange && (
                      <button type="button" class="button secondary small" disabled={remove.busy} onClick={() => void removeMember(member)}>
                        {t('settings.members.remove')}
                      </button>
                    )}
                  </div>
                </li>
              );
            })}
          </ul>
        )}
      </QueryState>
      {confirmDialog}
    </Section>
  );
}

/** Invite by e-mail with a role; pending invitations can be withdrawn. */
function Invitations() {
  const invitations = useQuery('invitations', fetchInvitations);
  const [confirm, confirmDialog] = useConfirm();
  const withdraw = useMutation((id: number) => succeeded(api.DELETE('/api/invitations/{id}', { params: { path: { id } } })), ['invitations']);

  const withdrawInvitation = async (invitation: { id: number; email: string }) => {
    const question = {
      title: t('settings.invitations.withdrawTitle', { email: invitation.email }),
      text: t('settings.invitations.withdrawText'),
      action: t('settings.invitations.withdraw'),
    };
    if ((await confirm(question)) && (await withdraw.run(invitation.id))) toast(t('settings.invitations.withdrawn'));
  };

  return (
    <Section title={t('settings.invitations.title')} description={t('settings.invitations.description')}>
      <InviteForm />
      <FormError message={withdraw.error?.message} />
      <QueryState query={invitations}>
        {(list) =>
          list.length === 0 ? (
            <p class="muted">{t('settings.invitations.empty')}</p>
          ) : (
            <ul class="settings-list" aria-label={t('settings.invitations.pending')}>
              {list.map((invitation) => (
                <li key={invitation.id} class="settings-row">
                  <div class="settings-row-main">
                    <strong>{invitation.email}</strong>
                    <Chip>{t(`account.role.${invitation.role}`)}</Chip>
                    <p class="muted">{t('settings.invitations.expires', { date: formatDate(invitation.expiresAt) })}</p>
                  </div>
                  <button type="button" class="button secondary small" disabled={withdraw.busy} onClick={() => void withdrawInvitation(invitation)}>
                    {t('settings.invitations.withdraw')}
                  </button>
                </li>
              ))}
            </ul>
          )
        }
      </QueryState>
      {confirmDialog}
    </Section>
  );
}

function InviteForm() {
  const managesOwners = useCan()('owners');
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('member');
  const invite = useMutation(() => ok(api.POST('/api/invitations', { body: { email: email.trim(), role } })), ['invitations']);
  // A refusal that names the role (an owner's to give) stands beside the role; any other, beside the address.
  const roleRefused = invite.error !== undefined && fieldOfError(invite.error.message, ['role']) === 'role';
  const submit = async (event: Event) => {
    event.preventDefault();
    if (await invite.run()) {
      toast(t('settings.invitations.sent', { email: email.trim() }));
      setEmail('');
    }
  };
  return (
    <form class="settings-inline-form" onSubmit={(event) => void submit(event)}>
      <TextField
        label={t('settings.invitations.email')}
        type="email"
        autoComplete="off"
        required
        value={email}
        onValue={setEmail}
        error={roleRefused ? undefined : invite.error?.message}
      />
      <SelectField
        label={t('settings.invitations.role')}
        value={role}
        options={roleOptions(managesOwners)}
        onValue={setRole}
        error={roleRefused ? invite.error?.message : undefined}
      />
      <button type="submit" class="button" disabled={invite.busy || email.trim() === ''}>
        {t('settings.invitations.send')}
      </button>
    </form>
  );
}
