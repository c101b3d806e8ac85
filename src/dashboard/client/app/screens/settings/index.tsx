import { useRoute } from 'preact-iso';
import type { ComponentType } from 'preact';
import { t, type MessageKey } from '../../i18n/index.js';
import { useCan, useMe, type Area } from '../../session.js';
import { EmptyState } from '../../ui/feedback.js';
import { PageHeader } from '../../ui/page.js';
import { AccountSection } from './account-section.js';
import { AgreementsSection } from './agreements-section.js';
import { ApiKeysSection } from './api-keys-section.js';
import { AuditLogSection } from './audit-log-section.js';
import { BrandingSection } from './branding-section.js';
import { IntegrationsSection } from './integrations-section.js';
import { MembersSection } from './members-section.js';
import { PaymentsSection } from './payments-section.js';
import { ProfileSection } from './profile-section.js';
import { SessionsSection } from './sessions-section.js';
import { SharingSection } from './sharing-section.js';
import { TwoFactorSection } from './two-factor-section.js';
import { WebhooksSection } from './webhooks-section.js';

interface SettingsSection {
  id: string;
  label: MessageKey;
  /** the permission area the role needs; none for the person's own settings */
  area?: Area;
  component: ComponentType;
}

const SECTIONS: SettingsSection[] = [
  { id: 'profile', label: 'settings.nav.profile', component: ProfileSection },
  { id: 'two-factor', label: 'settings.nav.twoFactor', component: TwoFactorSection },
  { id: 'sessions', label: 'settings.nav.sessions', component: SessionsSection },
  { id: 'account', label: 'settings.nav.account', area: 'account', component: AccountSection },
  { id: 'members', label: 'settings.nav.members', area: 'members', component: MembersSection },
  { id: 'api-keys', label: 'settings.nav.apiKeys', area: 'api-keys', component: ApiKeysSection },
  { id: 'branding', label: 'settings.nav.branding', area: 'branding', component: BrandingSection },
  { id: 'integrations', label: 'settings.nav.integrations', area: 'integrations', component: IntegrationsSection },
  { id: 'webhooks', label: 'settings.nav.webhooks', area: 'webhooks', component: WebhooksSection },
  { id: 'payments', label: 'settings.nav.payments', area: 'payments', component: PaymentsSection },
  { id: 'agreements', label: 'settings.nav.agreements', component: AgreementsSection },
  { id: 'sharing', label: 'settings.nav.sharing', area: 'sharing-policy', component: SharingSection },
  { id: 'audit-log', label: 'settings.nav.auditLog', area: 'audit-log', component: AuditLogSection },
];

const hrefOf = (section: SettingsSection) => `/app/settings/${section.id}`;

const PLAN_NAMES: Record<string, MessageKey> = {
  free: 'settings.plan.free',
  professional: 'settings.plan.professional',
  business: 'settings.plan.business',
};
const planName = (plan: string) => (PLAN_NAMES[plan] ? t(PLAN_NAMES[plan]) : plan);

/** A section the role may use but the account's plan does not include: said, rather than a refusal from the API. */
function BeyondPlan({ section, plan }: { section: SettingsSection; plan: string }) {
  const me = useMe();
  return (
    <EmptyState
      title={t('settings.plan.title', { section: t(section.label), plan: planName(plan) })}
      text={t('settings.plan.text', { current: planName(me.account.plan), plan: planName(plan) })}
    />
  );
}

function SectionNav({ sections, current }: { sections: SettingsSection[]; current: string | undefined }) {
  return (
    <nav class="settings-nav" aria-label={t('settings.nav.label')}>
      <ul>
        {sections.map((section) => (
          <li key={section.id}>
            <a href={hrefOf(section)} aria-current={section.id === current ? 'page' : undefined}>
              {t(section.label)}
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}

/**
 * /app/settings and /app/settings/:section. Sections the role may not use are not offered. On a
 * phone /app/settings is the list of sections alone; on a wider screen it opens the first one.
 */
export function SettingsScreen() {
  const { params } = useRoute();
  const can = useCan();
  const { areasAbovePlan } = useMe();
  const sections = SECTIONS.filter((section) => !section.area || can(section.area));
  const chosen = params.section;
  const section = chosen === undefined ? sections[0] : sections.find((candidate) => candidate.id === chosen);
  const Content = section?.component;
  const neededPlan = areasAbovePlan.find((beyond) => beyond.area === section?.area)?.plan;
  return (
    <div class={`settings${chosen === undefined ? ' settings-index' : ''}`}>
      <PageHeader title={t('nav.settings')} />
      <div class="settings-layout">
        <SectionNav sections={sections} current={section?.id} />
        <div class="settings-content">
          {chosen !== undefined && (
            <a class="settings-back" href="/app/settings">
              {t('settings.nav.back')}
            </a>
          )}
          {section && neededPlan ? (
            <BeyondPlan section={section} plan={neededPlan} />
          ) : Content ? (
            <Content />
          ) : (
            <EmptyState
              title={t('settings.nav.unknownTitle')}
              text={t('settings.nav.unknownText')}
              action={<a href="/app/settings">{t('settings.nav.back')}</a>}
            />
          )}
        </div>
      </div>
    </div>
  );
}
